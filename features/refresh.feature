Feature: Refresh
  An installed application, or a web application with offline access, renews its access token
  with its refresh token, without the user. The refresh token stays the same and stays valid.
  Every scenario here changes its grant, so each starts from a grant of its own.

  @REFRESH-NEW-ACCESS-TOKEN @spec
  Scenario: A refresh token yields a new access token
    Given the user has just granted the web application offline access to "profile email"
    When the application refreshes the access token
    Then the application receives a new access token
    And the new access token gives access to the user's profile

  @REFRESH-SAME-TOKEN @spec
  Scenario: The refresh response carries the same refresh token
    Given the user has just granted the web application offline access to "profile email"
    When the application refreshes the access token
    Then the response carries the same refresh token

  @TOKEN-EXPIRES-IN-3600 @spec
  Scenario: The access token of a refresh lasts 3600 seconds
    Given the user has just granted the web application offline access to "profile email"
    When the application refreshes the access token
    Then the refresh said the access token lasts 3600 seconds

  @REFRESH-TOKEN-STAYS-VALID @spec
  Scenario: A refresh token stays valid after use
    Given the user has just granted the web application offline access to "profile email"
    When the application refreshes the access token
    And the application refreshes the access token again with the refresh token it sent first
    Then the application receives a new access token

  @REFRESH-REQUIRED-PARAMS @spec
  Scenario Outline: A refresh without <field> is refused
    Given the user has just granted the web application offline access to "profile email"
    When the application refreshes the access token without the <field> field
    Then the refresh is refused

    Examples:
      | field         |
      | grant_type    |
      | refresh_token |
      | client_id     |
      | client_secret |

  @AUTH-TOKEN-CLIENT-SECRET @spec
  Scenario: A refresh with the wrong client secret is refused
    Given the user has just granted the web application offline access to "profile email"
    When the application refreshes the access token with a wrong client secret
    Then the refresh is refused

  @TOKEN-TYPE-PARAM @spec
  Scenario: A refresh asking for a bearer token is accepted
    Given the user has just granted the web application offline access to "profile email"
    When the application refreshes the access token with the token type "bearer"
    Then the application receives a new access token

  @TOKEN-TYPE-PARAM @spec
  Scenario: A refresh asking for a MAC token is refused
    Given the user has just granted the web application offline access to "profile email"
    When the application refreshes the access token with the token type "mac"
    Then the refresh is refused

  @REFRESH-CROSS-CLIENT @rfc
  Scenario: A refresh token issued to one application cannot be used by another
    Given the user has just granted the web application offline access to "profile email"
    When another web application refreshes the access token with its own credentials
    Then the refresh is refused

  @TOKEN-ERR-INVALID-GRANT @rfc
  Scenario: An unknown refresh token is answered invalid_grant
    Given a web application registered with the service
    When the application refreshes with a refresh token the service never issued
    Then the token endpoint answers 400 with the error "invalid_grant"

  @TOKEN-ERR-INVALID-GRANT @rfc
  Scenario: A revoked refresh token is answered invalid_grant
    Given the user has just granted the installed application access to "profile rating"
    When the application revokes the refresh token
    And the application refreshes the access token
    Then the token endpoint answers 400 with the error "invalid_grant"
