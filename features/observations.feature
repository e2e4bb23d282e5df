Feature: Observations
  Facts about a deployment that the spec leaves open, recorded for the report and never
  counted as failures.

  @INFO-TOKEN-FORMAT @info
  Scenario: The formats of codes and tokens are recorded
    Given the user has granted the web application offline access to "profile email"
    Then the length and alphabet of its code and tokens are recorded

  @INFO-TOKEN-TYPE-CASE @info
  Scenario: The spelling of the token type is recorded
    Given the user has granted the web application offline access to "profile email"
    Then the spelling of its token type is recorded

  @INFO-TOKEN-EXTRA-FIELDS @info
  Scenario: Extra fields of the token response are recorded
    Given the user has granted the web application offline access to "profile email"
    Then the fields of its token response beyond the spec's are recorded
