Feature: Token lifetime
  An access token lives expires_in (3600) seconds, whatever application it belongs to and
  whether it came from the code exchange or a refresh; a refresh token lives until it is
  revoked; an authorization code lives a few minutes. Where the deployment offers a test clock
  the suite moves it forward; otherwise these scenarios wait in real time and run only when
  slow scenarios are asked for.

  @LIFETIME-ACCESS-EXPIRES @spec @slow
  Scenario Outline: An access token of the <client> <origin> passed <delivery> is refused once its lifetime has passed
    Given the user has just granted the <client> access to "profile rating"
    And the application holds an access token <origin>
    When 3540 seconds pass
    Then the access token still works when passed <delivery>
    When 120 more seconds pass
    Then the access token no longer works when passed <delivery>

    Examples:
      | client                  | origin                 | delivery                    |
      | online web application  | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in a form body              |
      | offline web application | from a refresh         | in the Authorization header |
      | installed application   | from the code exchange | in the query string         |
      | installed application   | from a refresh         | in a form body              |
      | offline web application | from a refresh         | in the query string         |
      | online web application  | from the code exchange | in a form body              |
      | online web application  | from the code exchange | in the query string         |
      | installed application   | from the code exchange | in the Authorization header |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin                 | delivery                    |
      | offline web application | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in the query string         |
      | offline web application | from a refresh         | in a form body              |
      | installed application   | from the code exchange | in a form body              |
      | installed application   | from a refresh         | in the Authorization header |
      | installed application   | from a refresh         | in the query string         |

  @LIFETIME-REFRESH-PERSISTS @spec @slow
  Scenario Outline: A refresh token of the <client> outlives its access tokens
    Given the user has just granted the <client> access to "profile rating"
    When 3700 seconds pass
    Then the refresh token still yields new access tokens

    Examples:
      | client                  |
      | offline web application |
      | installed application   |

  @TOKEN-CODE-LIFETIME @rfc @slow
  Scenario Outline: An authorization code of the <client> (<pkce>) expires within ten minutes
    Given an authorization code issued to the <client> for a request with <pkce>
    When 610 seconds pass
    And the application exchanges the code
    Then the code exchange is refused

    Examples:
      | client                  | pkce                   |
      | online web application  | an S256 code challenge |
      | online web application  | no code challenge      |
      | offline web application | an S256 code challenge |
      | offline web application | no code challenge      |
      | installed application   | an S256 code challenge |
      | installed application   | no code challenge      |

  @USERINFO-ERR-INVALID-TOKEN @rfc @slow
  Scenario Outline: An expired access token of the <client> <origin>, passed <delivery>, is answered invalid_token
    Given the user has just granted the <client> access to "profile rating"
    And the application holds an access token <origin>
    When the application asks for the user's profile with its access token <invalidity>, passed <delivery>
    Then the service answers 401 with a Bearer challenge with the error "invalid_token"

    Examples:
      | client                  | origin                 | delivery                    | invalidity       |
      | online web application  | from the code exchange | in the query string         | that has expired |
      | offline web application | from a refresh         | in the Authorization header | that has expired |
      | installed application   | from the code exchange | in a form body              | that has expired |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin                 | delivery                    | invalidity       |
      | online web application  | from the code exchange | in the Authorization header | that has expired |
      | online web application  | from the code exchange | in a form body              | that has expired |
      | offline web application | from the code exchange | in the Authorization header | that has expired |
      | offline web application | from the code exchange | in a form body              | that has expired |
      | offline web application | from the code exchange | in the query string         | that has expired |
      | offline web application | from a refresh         | in a form body              | that has expired |
      | offline web application | from a refresh         | in the query string         | that has expired |
      | installed application   | from the code exchange | in the Authorization header | that has expired |
      | installed application   | from the code exchange | in the query string         | that has expired |
      | installed application   | from a refresh         | in the Authorization header | that has expired |
      | installed application   | from a refresh         | in a form body              | that has expired |
      | installed application   | from a refresh         | in the query string         | that has expired |
