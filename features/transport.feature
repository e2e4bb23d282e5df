Feature: Transport
  Every endpoint is reachable over HTTPS only, and a bearer token sent over plain HTTP is
  ignored.

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
  Scenario Outline: A bearer token sent over plain HTTP is ignored: the token <way>
    Given the user has just granted the web application access to "profile rating"
    When the application asks for the user's profile over plain HTTP with the token <way>
    Then the service does not return the user's profile

    Examples:
      | way                           |
      | in the Authorization header   |
      | in a form body                |
      | in the query string           |
