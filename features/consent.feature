Feature: Consent and approval
  The user grants or refuses consent on the service's authorization page. A web application
  that already has the user's consent for the same set of scopes is not asked again, unless
  it asks for the consent page to be shown every time.

  @AUTHZ-ERR-ACCESS-DENIED @spec
  Scenario: The user refuses the request
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request asks to always show the consent page
    And the user denies the request
    Then the application receives the error "access_denied"

  @AUTHZ-STATE-ON-ERROR @spec
  Scenario Outline: The state comes back unchanged with every kind of error: <error>
    Given a web application registered with the service
    When the application asks for the "<scope>" scope
    And the request <differs>
    And the request carries the state "<state>"
    And the user <acts>
    Then the error redirect carries the state "<state>"

    Examples:
      | error                     | scope            | differs                                         | acts                         | state                     |
      | access_denied             | profile          | asks to always show the consent page            | denies the request           | refused/é 1+1=2 %41&x#y   |
      | invalid_scope             | profile nonsense | asks to always show the consent page            | opens the authorization page | bad scope+%2F &a=b#c ü    |
      | unsupported_response_type | profile          | uses the response type "token"                  | opens the authorization page | rt+%25 &t=1#f 東京          |
      | invalid_request           | profile          | carries a code challenge with the method "S512" | opens the authorization page | pkce+%3D &m=S512#x ñ      |

  @AUTHZ-APPROVAL-AUTO @spec
  Scenario: A web application that already has consent for the same scopes is not asked again
    Given the user has granted the web application access to "profile tag"
    When the application asks for the "profile tag" scopes
    And the user opens the authorization page
    Then the consent page is not shown
    And the application receives an authorization code

  @AUTHZ-APPROVAL-AUTO @spec
  Scenario: Consent stands while the grant lives on without a live access token
    Given the user has just granted the web application offline access to "email submit_isrc submit_barcode"
    And the application has revoked the access token
    When the application asks for the "email submit_isrc submit_barcode" scopes
    And the user opens the authorization page
    Then the consent page is not shown
    And the application receives an authorization code

  @AUTHZ-APPROVAL-AUTO-NEW-SCOPES @AUTH-USER-CONSENT @spec
  Scenario: A set of scopes the user has not approved before needs consent
    Given the user has granted the web application access to "profile tag"
    When the application asks for scopes the user has not approved before
    And the user opens the authorization page
    Then the consent page is shown
    And no authorization code is issued

  @AUTHZ-APPROVAL-FORCE @spec
  Scenario: A request that asks for the consent page always gets it
    Given the user has granted the web application access to "profile tag"
    When the application asks for the "profile tag" scopes
    And the request asks to always show the consent page
    And the user opens the authorization page
    Then the consent page is shown

  @AUTHZ-FRAMING @rfc
  Scenario: The authorization pages cannot be framed by another site
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request asks to always show the consent page
    Then the page a logged-out user sees forbids framing
    When the user opens the authorization page
    Then the consent page forbids framing
