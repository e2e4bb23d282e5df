Feature: Desktop applications
  An installed application may receive the code out of band (the user copies it from the
  service's page) or on http://localhost with a port of its choosing. The spec requires both:
  a deployment whose profile declares no out-of-band support fails the out-of-band rules.

  @DESKTOP-OOB @CODE-OOB-SHOWN @spec
  Scenario Outline: The user copies the code into the application (<pkce>)
    Given an installed application registered with the service
    Then the deployment offers out-of-band delivery
    When the application asks for the "profile" scope
    And the request carries <pkce>
    And the request carries the out-of-band redirect URI
    And the user approves the request
    Then the user is shown an authorization code to copy
    When the application exchanges the code
    Then the application receives an access token

    Examples:
      | pkce                   |
      | an S256 code challenge |
      | no code challenge      |

  @DESKTOP-LOCALHOST-ANY-PORT @spec
  Scenario Outline: The code arrives on a localhost port of the application's choosing (<pkce>)
    Given an installed application registered with the service
    When the application asks for the "profile" scope
    And the request carries <pkce>
    And the request carries a localhost redirect URI on a port of its choosing
    And the user approves the request
    Then the application receives an authorization code
    When the application exchanges the code
    Then the application receives an access token

    Examples:
      | pkce                   |
      | an S256 code challenge |
      | no code challenge      |

  @TOKEN-REFRESH-INSTALLED @spec
  Scenario: An installed application receives a refresh token
    Given an authorization code issued to the installed application
    When the application exchanges the code for tokens
    Then the response carries a refresh token
