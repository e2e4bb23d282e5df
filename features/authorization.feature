Feature: Authorization request
  An application sends the user's browser to the authorization endpoint with its Client ID,
  its registered redirect URI and the scopes it needs. The service answers by sending the
  browser back to the application with an authorization code or an error, or, when it cannot
  trust the application or its redirect URI, by telling the user on its own page.

  @AUTHZ-RESPONSE-TYPE-CODE @spec
  Scenario Outline: An approved request of <application> sends the user back with an authorization code
    Given <application> registered with the service
    When the application asks for the "profile" scope
    And the user approves the request
    Then the application receives an authorization code

    Examples:
      | application              |
      | a web application        |
      | an installed application |

  @CODE-IN-REDIRECT @spec
  Scenario Outline: The code comes in the query of the redirect to <application>
    Given <application> registered with the service
    When the application asks for the "profile" scope
    And the user approves the request
    Then the code comes in the query of the redirect to the redirect URI

    Examples:
      | application              |
      | a web application        |
      | an installed application |

  @AUTHZ-STATE-ECHO @spec
  Scenario Outline: The state of the request comes back unchanged: <state>
    Given <application> registered with the service
    When the application asks for the "profile" scope
    And the request carries the state "<state>"
    And the user approves the request
    Then the redirect carries the state "<state>"

    Examples:
      | application              | state                          |
      | a web application        | a b&c=d/é~%                    |
      | a web application        | 1+1=2 %2B%41%zz #top ?x=&y;z   |
      | a web application        | Grüße, 東京 🎵 "quoted"         |
      | an installed application | 1+1=2 %2B%41%zz #top ?x=&y;z   |

  @AUTHZ-REQUIRED-PARAMS @spec
  Scenario Outline: A request without <parameter> never yields a code
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request leaves out the <parameter> parameter
    And the user approves the request
    Then no authorization code is issued

    Examples:
      | parameter     |
      | response_type |
      | scope         |

  @AUTHZ-ERR-UNSUPPORTED-RESPONSE-TYPE @spec
  Scenario Outline: An unsupported response type "<response_type>" is sent back as an error
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request uses the response type "<response_type>"
    And the request carries the state "rt-<response_type>"
    And the user opens the authorization page
    Then the application receives the error "unsupported_response_type"
    And the error redirect carries the state "rt-<response_type>"

    Examples:
      | response_type |
      | token         |
      | id_token      |
      | code token    |

  @AUTHZ-ERR-INVALID-SCOPE @spec
  Scenario Outline: An invalid scope "<scope>" is sent back as an error
    Given a web application registered with the service
    When the application asks for the "<scope>" scope
    And the user opens the authorization page
    Then the application receives the error "invalid_scope"

    Examples:
      | scope              |
      | profile nonsense   |
      | admin              |
      | profile,email      |

  @AUTHZ-ERR-INVALID-REQUEST @rfc
  Scenario Outline: A malformed request of a known application is sent back as an error: <problem>
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request carries <problem>
    And the user opens the authorization page
    Then the application receives the error "invalid_request"

    Examples:
      | problem                                      |
      | a code challenge with the method "S512"      |
      | an S256 code challenge that is 42 characters long |

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
  Scenario: A request without a redirect URI is refused on the service's own page
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request leaves out the redirect_uri parameter
    And the user opens the authorization page
    Then the service shows an error page without sending the user back

  @AUTHZ-ERR-BAD-REDIRECT @spec
  Scenario Outline: A redirect URI that is not the registered one is refused: <change>
    Given <application> registered with the service
    When the application asks for the "profile" scope
    And the request carries the registered redirect URI changed <change>
    And the user opens the authorization page
    Then the service shows an error page without sending the user back

    Examples: another URL
      | application          | change                               |
      | a web application    | to another host                      |
      | a web application    | to another path                      |
      | a web application    | to another scheme                    |
      | a web application    | to another port                      |
      | a web application    | to the out-of-band URI               |
      | a web application    | to a localhost URI                   |
      | a web application    | to a subdomain of its host           |
      | a web application    | into the user name of another host   |
      | an installed application | to another host                  |
      | an installed application | to another scheme                |
      | an installed application | to a subdomain of its host       |
      | an installed application | into the user name of another host |

    Examples: the registered URL plus a suffix is not the registered URL exactly
      | application          | change                               |
      | a web application    | by a path segment added              |
      | a web application    | by a trailing slash                  |
      | a web application    | by an extra query parameter          |
      | a web application    | by a fragment                        |
      | a web application    | by a dot segment in the path         |
      | a web application    | to upper case in its path            |
      | a web application    | by a user name before the host       |
      | an installed application | by a user name before the host   |

  @DESKTOP-LOOPBACK-PATH @spec
  Scenario Outline: Only the port of the installed application's localhost URI may vary: <change>
    Given an installed application registered with the service
    When the application asks for the "profile" scope
    And the request carries a localhost redirect URI on port 49152 changed <change>
    And the user opens the authorization page
    Then the service shows an error page without sending the user back

    Examples:
      | change                       |
      | to another path              |
      | by a path segment added      |
      | by a trailing slash          |
      | by an extra query parameter  |
      | by a fragment                |
      | to upper case in its path    |
      | by a dot segment in the path |

  @AUTHZ-REDIRECT-URI-BYPASS @rfc
  Scenario Outline: A spelling equivalent to the registered redirect URI is refused: <change>
    Given <application> registered with the service
    When the application asks for the "profile" scope
    And the request carries the registered redirect URI changed <change>
    And the user opens the authorization page
    Then the service shows an error page without sending the user back

    Examples:
      | application              | change                          |
      | a web application        | to upper case in its host       |
      | a web application        | by a percent-encoded character  |
      | an installed application | to upper case in its host       |
      | an installed application | by a percent-encoded character  |
