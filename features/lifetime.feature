Feature: Token lifetime
  An access token lives expires_in (3600) seconds; a refresh token lives until it is revoked;
  an authorization code lives a few minutes. Where the deployment offers a test clock the
  suite moves it forward; otherwise these scenarios wait in real time and run only when slow
  scenarios are asked for.

  @LIFETIME-ACCESS-EXPIRES @spec @slow
  Scenario: An access token is refused once its lifetime has passed
    Given the user has just granted the web application offline access to "profile rating"
    When 3540 seconds pass
    Then the access token still works
    When 120 more seconds pass
    Then the access token no longer works

  @LIFETIME-REFRESH-PERSISTS @spec @slow
  Scenario: A refresh token outlives its access tokens
    Given the user has just granted the web application offline access to "profile rating"
    When 3700 seconds pass
    Then the refresh token still yields new access tokens

  @TOKEN-CODE-LIFETIME @rfc @slow
  Scenario: An authorization code expires within ten minutes
    Given an authorization code issued to the web application
    When 610 seconds pass
    And the application exchanges the code
    Then the exchange is refused

  @USERINFO-ERR-INVALID-TOKEN @rfc @slow
  Scenario: An expired token is answered invalid_token
    Given the user has just granted the web application offline access to "profile rating"
    When 3700 seconds pass
    And the application asks for the user's profile with the token in the Authorization header
    Then the service answers 401 with a Bearer challenge with the error "invalid_token"
