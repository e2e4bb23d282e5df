Feature: Authorization request
  An application sends the user's browser to the authorization endpoint with its Client ID,
  its registered redirect URI and the scopes it needs. The service answers by sending the
  browser back to the application with an authorization code or an error, or, when it cannot
  trust the application or its redirect URI, by telling the user on its own page.

  @AUTHZ-RESPONSE-TYPE-CODE @CODE-IN-REDIRECT @spec
  Scenario: An approved request sends the user back with an authorization code
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the user approves the request
    Then the application receives an authorization code

  @AUTHZ-STATE-ECHO @spec
  Scenario: The state of the request comes back unchanged
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request carries the state "a b&c=d/é~%"
    And the user approves the request
    Then the application receives an authorization code
    And the redirect carries the state "a b&c=d/é~%"

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
    And the redirect carries the state "rt-<response_type>"

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
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request carries the registered redirect URI changed <change>
    And the user opens the authorization page
    Then the service shows an error page without sending the user back

    Examples:
      | change                   |
      | to another host          |
      | to another path          |
      | to another scheme        |
      | to another port          |
      | to the out-of-band URI   |
      | to a localhost URI       |

  @AUTHZ-REDIRECT-URI-BYPASS @rfc
  Scenario Outline: A look-alike of the registered redirect URI is refused: <change>
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request carries the registered redirect URI changed <change>
    And the user opens the authorization page
    Then the service shows an error page without sending the user back

    Examples:
      | change                                 |
      | by an extra query parameter            |
      | by a user name before the host         |
      | into the user name of another host     |
      | by a fragment                          |
      | to upper case                          |
      | by a percent-encoded character         |
      | by a trailing slash                    |
      | by a dot segment in the path           |
      | to a subdomain of its host             |
