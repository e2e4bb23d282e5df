Feature: Transport
  Every endpoint is reachable over HTTPS only, and a bearer token sent over plain HTTP is
  ignored, whichever way it travels and whatever application it belongs to.

  @TRANSPORT-HTTPS-ONLY @spec
  Scenario Outline: The <endpoint> endpoint refuses plain HTTP
    Given a web application registered with the service
    When the application calls the <endpoint> endpoint over plain HTTP
    Then the request is refused

    Examples:
      | endpoint         |
      | authorization    |
      | token            |
      | revocation       |
      | user information |

  @BEARER-HTTP-IGNORED @spec
  Scenario Outline: A bearer token of the <client> <origin> sent over plain HTTP <delivery> is ignored
    Given the user has just granted the <client> access to "profile rating"
    And the application holds an access token <origin>
    When the application asks for the user's profile over plain HTTP with the token <delivery>
    Then the service does not return the user's profile

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
