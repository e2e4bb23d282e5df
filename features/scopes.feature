Feature: Scopes
  Scopes name what the user lets the application do. The profile scope shows the user's public
  profile; the email scope shows the user's email. Identifiers are given exactly: a deployment
  that names them otherwise (the profile's [scopes]) is checked with its own names everywhere,
  and fails only the rule that requires the spec's names.

  @SCOPE-IDENTIFIERS @spec
  Scenario: All seven scope identifiers are accepted together
    Given a web application registered with the service
    When the application asks for the "profile email tag rating collection submit_isrc submit_barcode" scopes
    And the user approves the request
    Then the application receives an authorization code
    And the deployment names every scope as the spec does

  @SCOPE-EMAIL-GRANTS-EMAIL @spec
  Scenario: The email scope shows the user's email
    Given the user has granted the web application offline access to "profile email"
    When the application asks for the user's profile with the token in the Authorization header
    Then the user's email is included

  @SCOPE-PROFILE-WITHHELD @spec
  Scenario: Without the profile scope the user's profile is not shown
    Given the user has granted the web application access to "tag"
    When the application asks for the user's profile with the token in the Authorization header
    Then the service does not return the user's profile

  @SCOPE-CASE-SENSITIVE @rfc
  Scenario Outline: The scope "<scope>" in another case is refused
    Given a web application registered with the service
    When the application asks for the "<scope>" scope
    And the user opens the authorization page
    Then the request is refused as "invalid_scope"

    Examples:
      | scope   |
      | Profile |
      | EMAIL   |
