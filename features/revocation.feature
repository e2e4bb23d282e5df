Feature: Revocation
  An application revokes tokens it no longer needs (RFC 7009). Revoking an access token of an
  installed or offline application revokes only that token; revoking a refresh token, or the
  access token of an online application, revokes the whole grant. The user can also revoke an
  application on the website, whatever the application revoked before. Every scenario here
  changes its grant, so each starts from a grant of its own.

  @VERSION-REVOCATION @spec
  Scenario: The deployment offers token revocation
    Given a web application registered with the service
    When the application revokes a token the service never issued
    Then the service offers token revocation

  @REVOKE-EMPTY-200 @spec
  Scenario: A revocation is answered 200 with an empty body
    Given the user has just granted the web application offline access to "profile rating"
    When the application revokes the access token
    Then the revocation is answered 200 with an empty body

  @REVOKE-INVALID-TOKEN-200 @spec
  Scenario: The revocation of an invalid token is still answered 200 with an empty body
    Given a web application registered with the service
    When the application revokes a token the service never issued
    Then the revocation is answered 200 with an empty body

  @REVOKE-ACCESS-KEEPS-REFRESH @spec
  Scenario Outline: Revoking the access token of <kind> revokes only that token
    Given the user has just granted the <kind> offline access to "profile rating"
    And the application has revoked the access token
    Then the access token no longer works
    And the refresh token still yields new access tokens

    Examples:
      | kind                   |
      | web application        |
      | installed application  |

  @REVOKE-REFRESH-WHOLE-GRANT @spec
  Scenario Outline: Revoking the refresh token of <kind> revokes the whole grant
    Given the user has just granted the <kind> offline access to "profile rating"
    And the application has revoked the refresh token
    Then the refresh token no longer works
    And the access token no longer works

    Examples:
      | kind                   |
      | web application        |
      | installed application  |

  @REVOKE-ONLINE-WHOLE-GRANT @spec
  Scenario: Revoking the access token of an online application revokes the whole grant
    Given the user has just granted the web application access to "profile rating"
    And the application has revoked the access token
    Then the access token no longer works
    And no refresh token of the grant works either

  @REVOKE-POST-ONLY @spec
  Scenario: The revocation endpoint takes POST only
    Given the user has just granted the web application offline access to "profile rating"
    When the application revokes the refresh token with a GET request
    Then the revocation is not answered with success
    And the refresh token still yields new access tokens

  @REVOKE-REQUIRED-PARAMS @spec
  Scenario Outline: A revocation without <field> is not answered with success
    Given the user has just granted the web application offline access to "profile rating"
    When the application revokes the refresh token without the <field> field
    Then the revocation is not answered with success
    And the refresh token still yields new access tokens

    Examples:
      | field         |
      | token         |
      | client_id     |
      | client_secret |

  @AUTH-REVOKE-CLIENT-SECRET @spec
  Scenario: A revocation with the wrong client secret revokes nothing
    Given the user has just granted the web application offline access to "profile rating"
    When the application revokes the refresh token with a wrong client secret
    Then the revocation is not answered with success
    And the refresh token still yields new access tokens

  @REVOKE-ERR-INVALID-CLIENT @rfc
  Scenario: Wrong client credentials at the revocation endpoint are answered invalid_client
    Given the user has just granted the web application offline access to "profile rating"
    When the application revokes the refresh token with a wrong client secret
    Then the revocation endpoint answers with the error "invalid_client" as RFC 7009 describes

  @REVOKE-OTHER-CLIENT @rfc
  Scenario: An application cannot revoke another application's token
    Given the user has just granted the web application offline access to "profile rating"
    When another web application revokes the refresh token with its own credentials
    Then the refresh token still yields new access tokens

  @REVOKE-NO-QUERY-PARAMS @rfc
  Scenario: The revocation endpoint refuses credentials in the URL
    Given the user has just granted the web application offline access to "profile rating"
    When the application revokes the refresh token with all parameters in the URL query string
    Then the revocation is not answered with success
    And the refresh token still yields new access tokens

  @REVOKE-MANUAL @spec @lasting
  Scenario: The user revokes the application on the website
    Given the user has just granted the installed application offline access to "profile collection"
    When the user revokes the application's access on the website
    Then the refresh token no longer works

  @REVOKE-MANUAL @spec @lasting
  Scenario: The user revokes the application on the website after its access token was revoked
    Given the user has just granted the installed application offline access to "profile collection"
    And the application has revoked the access token
    When the user revokes the application's access on the website
    Then the refresh token no longer works

  @INFO-REVOKE-HEADERS @info
  Scenario: The headers of the empty revocation response are recorded
    Given a web application registered with the service
    When the application revokes a token the service never issued
    Then the headers of the revocation response are recorded
