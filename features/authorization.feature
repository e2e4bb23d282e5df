Feature: Authorization request
  An application sends the user's browser to the authorization endpoint with its Client ID,
  its registered redirect URI and the scopes it needs. The service answers by sending the
  browser back to the application with an authorization code or an error, or, when it cannot
  trust the application or its redirect URI, by telling the user on its own page. Every kind
  of application is tried, with and without PKCE.

  @AUTHZ-RESPONSE-TYPE-CODE @spec
  Scenario Outline: An approved request of the <client> with <pkce> sends the user back with an authorization code
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries <pkce>
    And the user approves the request
    Then the application receives an authorization code

    Examples:
      | client                  | pkce                   |
      | online web application  | an S256 code challenge |
      | online web application  | no code challenge      |
      | offline web application | an S256 code challenge |
      | offline web application | no code challenge      |
      | installed application   | an S256 code challenge |
      | installed application   | no code challenge      |

  @CODE-IN-REDIRECT @spec
  Scenario Outline: The code comes in the query of the redirect to the <client> (<pkce>)
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries <pkce>
    And the user approves the request
    Then the code comes in the query of the redirect to the redirect URI

    Examples:
      | client                  | pkce                   |
      | online web application  | an S256 code challenge |
      | online web application  | no code challenge      |
      | offline web application | an S256 code challenge |
      | offline web application | no code challenge      |
      | installed application   | an S256 code challenge |
      | installed application   | no code challenge      |

  @AUTHZ-STATE-ECHO @spec
  Scenario Outline: A state of <state> comes back unchanged to the <client> (<pkce>)
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries <pkce>
    And the request carries a state of <state>
    And the user approves the request
    Then the redirect carries the same state

    Examples:
      | client                  | pkce                   | state                |
      | online web application  | an S256 code challenge | plain letters        |
      | online web application  | no code challenge      | reserved characters  |
      | offline web application | an S256 code challenge | reserved characters  |
      | offline web application | no code challenge      | plain letters        |
      | installed application   | an S256 code challenge | non-ASCII characters |
      | online web application  | no code challenge      | non-ASCII characters |
      | installed application   | no code challenge      | plain letters        |
      | offline web application | an S256 code challenge | non-ASCII characters |
      | installed application   | an S256 code challenge | reserved characters  |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | pkce                   | state                |
      | online web application  | an S256 code challenge | reserved characters  |
      | online web application  | an S256 code challenge | non-ASCII characters |
      | online web application  | no code challenge      | plain letters        |
      | offline web application | an S256 code challenge | plain letters        |
      | offline web application | no code challenge      | reserved characters  |
      | offline web application | no code challenge      | non-ASCII characters |
      | installed application   | an S256 code challenge | plain letters        |
      | installed application   | no code challenge      | reserved characters  |
      | installed application   | no code challenge      | non-ASCII characters |

  @AUTHZ-STATE-ON-ERROR @spec
  Scenario Outline: A state of <state> comes back unchanged to the <client> with the error <error>
    Given an <client> registered with the service
    When the application asks for the "<scope>" scope
    And the request <differs>
    And the request carries a state of <state>
    And the user <acts>
    Then the error redirect carries the same state

    Examples:
      | client                  | error                     | state                | scope            | differs                                         | acts                         |
      | online web application  | access_denied             | plain letters        | profile          | asks to always show the consent page            | denies the request           |
      | online web application  | invalid_scope             | reserved characters  | profile nonsense | asks to always show the consent page            | opens the authorization page |
      | online web application  | unsupported_response_type | non-ASCII characters | profile          | uses the response type "token"                  | opens the authorization page |
      | offline web application | access_denied             | reserved characters  | profile          | asks to always show the consent page            | denies the request           |
      | offline web application | invalid_scope             | plain letters        | profile nonsense | asks to always show the consent page            | opens the authorization page |
      | offline web application | invalid_request           | non-ASCII characters | profile          | carries a code challenge with the method "S512" | opens the authorization page |
      | installed application   | access_denied             | non-ASCII characters | profile          | asks to always show the consent page            | denies the request           |
      | installed application   | unsupported_response_type | plain letters        | profile          | uses the response type "token"                  | opens the authorization page |
      | installed application   | invalid_request           | reserved characters  | profile          | carries a code challenge with the method "S512" | opens the authorization page |
      | online web application  | invalid_request           | plain letters        | profile          | carries a code challenge with the method "S512" | opens the authorization page |
      | offline web application | unsupported_response_type | reserved characters  | profile          | uses the response type "token"                  | opens the authorization page |
      | installed application   | invalid_scope             | non-ASCII characters | profile nonsense | asks to always show the consent page            | opens the authorization page |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | error                     | state                | scope            | differs                                         | acts                         |
      | online web application  | access_denied             | reserved characters  | profile          | asks to always show the consent page            | denies the request           |
      | online web application  | access_denied             | non-ASCII characters | profile          | asks to always show the consent page            | denies the request           |
      | online web application  | invalid_scope             | plain letters        | profile nonsense | asks to always show the consent page            | opens the authorization page |
      | online web application  | invalid_scope             | non-ASCII characters | profile nonsense | asks to always show the consent page            | opens the authorization page |
      | online web application  | unsupported_response_type | plain letters        | profile          | uses the response type "token"                  | opens the authorization page |
      | online web application  | unsupported_response_type | reserved characters  | profile          | uses the response type "token"                  | opens the authorization page |
      | online web application  | invalid_request           | reserved characters  | profile          | carries a code challenge with the method "S512" | opens the authorization page |
      | online web application  | invalid_request           | non-ASCII characters | profile          | carries a code challenge with the method "S512" | opens the authorization page |
      | offline web application | access_denied             | plain letters        | profile          | asks to always show the consent page            | denies the request           |
      | offline web application | access_denied             | non-ASCII characters | profile          | asks to always show the consent page            | denies the request           |
      | offline web application | invalid_scope             | reserved characters  | profile nonsense | asks to always show the consent page            | opens the authorization page |
      | offline web application | invalid_scope             | non-ASCII characters | profile nonsense | asks to always show the consent page            | opens the authorization page |
      | offline web application | unsupported_response_type | plain letters        | profile          | uses the response type "token"                  | opens the authorization page |
      | offline web application | unsupported_response_type | non-ASCII characters | profile          | uses the response type "token"                  | opens the authorization page |
      | offline web application | invalid_request           | plain letters        | profile          | carries a code challenge with the method "S512" | opens the authorization page |
      | offline web application | invalid_request           | reserved characters  | profile          | carries a code challenge with the method "S512" | opens the authorization page |
      | installed application   | access_denied             | plain letters        | profile          | asks to always show the consent page            | denies the request           |
      | installed application   | access_denied             | reserved characters  | profile          | asks to always show the consent page            | denies the request           |
      | installed application   | invalid_scope             | plain letters        | profile nonsense | asks to always show the consent page            | opens the authorization page |
      | installed application   | invalid_scope             | reserved characters  | profile nonsense | asks to always show the consent page            | opens the authorization page |
      | installed application   | unsupported_response_type | reserved characters  | profile          | uses the response type "token"                  | opens the authorization page |
      | installed application   | unsupported_response_type | non-ASCII characters | profile          | uses the response type "token"                  | opens the authorization page |
      | installed application   | invalid_request           | plain letters        | profile          | carries a code challenge with the method "S512" | opens the authorization page |
      | installed application   | invalid_request           | non-ASCII characters | profile          | carries a code challenge with the method "S512" | opens the authorization page |

  @AUTHZ-REQUIRED-PARAMS @spec
  Scenario Outline: A request of the <client> (<pkce>) without <missing> never yields a code
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries <pkce>
    And the request leaves out <missing>
    And the user approves the request
    Then no authorization code is issued

    Examples:
      | client                  | pkce                   | missing                     |
      | online web application  | an S256 code challenge | the response_type parameter |
      | online web application  | an S256 code challenge | the scope parameter         |
      | online web application  | no code challenge      | the response_type parameter |
      | online web application  | no code challenge      | the scope parameter         |
      | offline web application | an S256 code challenge | the response_type parameter |
      | offline web application | an S256 code challenge | the scope parameter         |
      | offline web application | no code challenge      | the response_type parameter |
      | offline web application | no code challenge      | the scope parameter         |
      | installed application   | an S256 code challenge | the response_type parameter |
      | installed application   | an S256 code challenge | the scope parameter         |
      | installed application   | no code challenge      | the response_type parameter |
      | installed application   | no code challenge      | the scope parameter         |

  @AUTHZ-ERR-UNSUPPORTED-RESPONSE-TYPE @spec
  Scenario Outline: An unsupported response type "<response_type>" is sent back to the <client> as an error, with a state of <state>
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request uses the response type "<response_type>"
    And the request carries a state of <state>
    And the user opens the authorization page
    Then the application receives the error "unsupported_response_type"
    And the error redirect carries the same state

    Examples:
      | client                  | state                | response_type |
      | online web application  | plain letters        | token         |
      | online web application  | reserved characters  | id_token      |
      | online web application  | non-ASCII characters | code token    |
      | offline web application | plain letters        | token         |
      | offline web application | reserved characters  | id_token      |
      | offline web application | non-ASCII characters | code token    |
      | installed application   | plain letters        | token         |
      | installed application   | reserved characters  | id_token      |
      | installed application   | non-ASCII characters | code token    |

  @AUTHZ-ERR-INVALID-SCOPE @spec
  Scenario Outline: An invalid scope "<scope>" is sent back to the <client> as an error
    Given an <client> registered with the service
    When the application asks for the "<scope>" scope
    And the user opens the authorization page
    Then the application receives the error "invalid_scope"

    Examples:
      | client                  | scope            |
      | online web application  | profile nonsense |
      | offline web application | admin            |
      | installed application   | profile,email    |

  @AUTHZ-ERR-INVALID-REQUEST @rfc
  Scenario Outline: A malformed request of the <client> is sent back as an error: <problem>
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries <problem>
    And the user opens the authorization page
    Then the application receives the error "invalid_request"

    Examples:
      | client                  | problem                                           |
      | online web application  | a code challenge with the method "S512"           |
      | offline web application | an S256 code challenge that is 42 characters long |
      | installed application   | a code challenge with the method "S512"           |

  @AUTHZ-ERR-BAD-CLIENT @spec
  Scenario Outline: A request with <client> is refused on the service's own page
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request carries <client>
    And the user opens the authorization page
    Then the service shows an error page without sending the user back

    Examples:
      | client               |
      | an unknown Client ID |
      | no Client ID         |

  @AUTHZ-ERR-BAD-REDIRECT @spec
  Scenario Outline: A request of the <client> without a redirect URI is refused on the service's own page
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request leaves out the redirect_uri parameter
    And the user opens the authorization page
    Then the service shows an error page without sending the user back

    Examples:
      | client                 |
      | online web application |
      | installed application  |

  @AUTHZ-ERR-BAD-REDIRECT @spec
  Scenario Outline: A redirect URI of the <client> that is not the registered one is refused: <redirect_change>
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries the registered redirect URI changed <redirect_change>
    And the user opens the authorization page
    Then the service shows an error page without sending the user back

    Examples:
      | client                 | redirect_change                    |
      | online web application | to another host                    |
      | online web application | to another path                    |
      | online web application | to another scheme                  |
      | online web application | to another port                    |
      | online web application | to the out-of-band URI             |
      | online web application | to a localhost URI                 |
      | online web application | to a subdomain of its host         |
      | online web application | into the user name of another host |
      | online web application | by a path segment added            |
      | online web application | by a trailing slash                |
      | online web application | by an extra query parameter        |
      | online web application | by a fragment                      |
      | online web application | by a dot segment in the path       |
      | online web application | to upper case in its path          |
      | online web application | by a user name before the host     |
      | installed application  | to another host                    |
      | installed application  | to another scheme                  |
      | installed application  | to a subdomain of its host         |
      | installed application  | into the user name of another host |
      | installed application  | by a user name before the host     |

  @DESKTOP-LOOPBACK-PATH @spec
  Scenario Outline: Only the port of the installed application's localhost URI may vary: <redirect_change>
    Given an installed application registered with the service
    When the application asks for the "profile" scope
    And the request carries a localhost redirect URI on port 49152 changed <redirect_change>
    And the user opens the authorization page
    Then the service shows an error page without sending the user back

    Examples:
      | redirect_change                    |
      | to another path                    |
      | by a path segment added            |
      | by a trailing slash                |
      | by an extra query parameter        |
      | by a fragment                      |
      | to upper case in its path          |
      | by a dot segment in the path       |
      | to another host with the same port |

  @AUTHZ-REDIRECT-URI-BYPASS @rfc
  Scenario Outline: A spelling equivalent to the registered redirect URI of the <client> is refused: <redirect_change>
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries the registered redirect URI changed <redirect_change>
    And the user opens the authorization page
    Then the service shows an error page without sending the user back

    Examples:
      | client                 | redirect_change                |
      | online web application | to upper case in its host      |
      | online web application | by a percent-encoded character |
      | installed application  | to upper case in its host      |
      | installed application  | by a percent-encoded character |
