Feature: Consent and approval
  The user grants or refuses consent on the service's authorization page. A web application
  that already has the user's consent for the same set of scopes is not asked again, unless
  it asks for the consent page to be shown every time.

  @AUTHZ-ERR-ACCESS-DENIED @spec
  Scenario Outline: The user refuses the request of the <client>
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request asks to always show the consent page
    And the user denies the request
    Then the application receives the error "access_denied"

    Examples:
      | client                  |
      | online web application  |
      | offline web application |
      | installed application   |

  @AUTHZ-APPROVAL-AUTO @spec
  Scenario Outline: The <client> that already has consent for the same scopes is not asked again (<pkce>)
    Given the user has granted the <client> access to "profile tag"
    When the application asks for the "profile tag" scopes
    And the request carries <pkce>
    And the user opens the authorization page
    Then the consent page is not shown
    And the application receives an authorization code

    Examples:
      | client                  | pkce                   |
      | online web application  | an S256 code challenge |
      | online web application  | no code challenge      |
      | offline web application | an S256 code challenge |
      | offline web application | no code challenge      |

  @AUTHZ-APPROVAL-AUTO @spec
  Scenario: Consent stands while the grant lives on without a live access token
    Given the user has just granted the offline web application access to "email submit_isrc submit_barcode"
    And the grant lives on without a live access token
    When the application asks for the "email submit_isrc submit_barcode" scopes
    And the user opens the authorization page
    Then the consent page is not shown
    And the application receives an authorization code

  @AUTHZ-APPROVAL-AUTO-NEW-SCOPES @AUTH-USER-CONSENT @spec
  Scenario Outline: A set of scopes the user has not approved before needs the consent of the <client> (<pkce>)
    Given the user has granted the <client> access to "profile tag"
    When the application asks for scopes the user has not approved before
    And the request carries <pkce>
    And the user opens the authorization page
    Then the consent page is shown
    And no authorization code is issued

    Examples:
      | client                  | pkce                   |
      | online web application  | an S256 code challenge |
      | online web application  | no code challenge      |
      | offline web application | an S256 code challenge |
      | offline web application | no code challenge      |

  @AUTH-USER-CONSENT @spec
  Scenario Outline: A set of scopes the user has not approved before needs the consent of the installed application (<pkce>)
    Given the user has granted the installed application access to "profile tag"
    When the application asks for scopes the user has not approved before
    And the request carries <pkce>
    And the user opens the authorization page
    Then the consent page is shown
    And no authorization code is issued

    Examples:
      | pkce                   |
      | an S256 code challenge |
      | no code challenge      |

  @AUTHZ-APPROVAL-FORCE @spec
  Scenario Outline: A request of the <client> that asks for the consent page always gets it (<pkce>)
    Given the user has granted the <client> access to "profile tag"
    When the application asks for the "profile tag" scopes
    And the request carries <pkce>
    And the request asks to always show the consent page
    And the user opens the authorization page
    Then the consent page is shown

    Examples:
      | client                  | pkce                   |
      | online web application  | an S256 code challenge |
      | online web application  | no code challenge      |
      | offline web application | an S256 code challenge |
      | offline web application | no code challenge      |

  @AUTHZ-FRAMING @rfc
  Scenario: The authorization pages cannot be framed by another site
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request asks to always show the consent page
    Then the page a logged-out user sees forbids framing
    When the user opens the authorization page
    Then the consent page forbids framing
