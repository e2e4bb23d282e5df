Feature: Refresh
  An installed application, or a web application with offline access, renews its access token
  with its refresh token, without the user. The refresh token stays the same and stays valid.
  Every scenario here changes its grant, so each starts from a grant of its own.

  @REFRESH-NEW-ACCESS-TOKEN @spec
  Scenario Outline: A refresh token yields a new access token (<kind>)
    Given the user has just granted the <kind> offline access to "profile email"
    When the application refreshes the access token
    Then the application receives a new access token
    And the new access token is accepted by the service

    Examples:
      | kind                  |
      | web application       |
      | installed application |

  @REFRESH-SAME-TOKEN @spec
  Scenario Outline: The refresh response carries the same refresh token (<kind>)
    Given the user has just granted the <kind> offline access to "profile email"
    When the application refreshes the access token
    Then the response carries the same refresh token

    Examples:
      | kind                  |
      | web application       |
      | installed application |

  @TOKEN-EXPIRES-IN-3600 @spec
  Scenario Outline: The access token of a refresh lasts 3600 seconds (<kind>)
    Given the user has just granted the <kind> offline access to "profile email"
    When the application refreshes the access token
    Then the refresh said the access token lasts 3600 seconds

    Examples:
      | kind                  |
      | web application       |
      | installed application |

  @REFRESH-TOKEN-STAYS-VALID @spec
  Scenario Outline: A refresh token stays valid after use (<kind>)
    Given the user has just granted the <kind> offline access to "profile email"
    And the application has refreshed the access token
    When the application refreshes the access token again with the refresh token it sent first
    Then the application receives a new access token

    Examples:
      | kind                  |
      | web application       |
      | installed application |

  @REFRESH-REQUIRED-PARAMS @spec
  Scenario Outline: A refresh of the <kind> without <field> is refused
    Given the user has just granted the <kind> offline access to "profile email"
    When the application refreshes the access token without the <field> field
    Then the refresh is refused

    Examples:
      | kind                  | field         |
      | web application       | grant_type    |
      | web application       | refresh_token |
      | web application       | client_id     |
      | web application       | client_secret |
      | installed application | client_secret |

  @AUTH-TOKEN-CLIENT-SECRET @spec
  Scenario Outline: A refresh of the <kind> with <secret> is refused
    Given the user has just granted the <kind> offline access to "profile email"
    When the application refreshes the access token with <secret>
    Then the refresh is refused

    Examples:
      | kind                   | secret                                            |
      | second web application | a wrong client secret                             |
      | second web application | its client secret with the last character changed |
      | second web application | its client secret without the last character      |
      | installed application  | its client secret with a character added          |
      | installed application  | a wrong client secret                             |

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
    And the application has revoked the refresh token
    When the application refreshes the access token
    Then the token endpoint answers 400 with the error "invalid_grant"
