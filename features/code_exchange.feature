Feature: Code exchange
  The application exchanges the authorization code at the token endpoint, authenticating with
  its Client ID and Client Secret, for an access token and, for an installed application or a
  web application with offline access, a refresh token.

  @TOKEN-CODE-EXCHANGE @spec
  Scenario Outline: A code of the <kind> is exchanged for an access token the service accepts
    Given an authorization code issued to the <kind>
    When the application exchanges the code
    Then the application receives an access token
    And the access token is accepted by the service

    Examples:
      | kind                               |
      | web application                    |
      | web application for offline access |
      | installed application              |

  @APP-TYPES @spec
  Scenario Outline: A <kind> application completes the authorization code flow
    Given an authorization code issued to the <kind> application
    When the application exchanges the code
    Then the application receives an access token

    Examples:
      | kind      |
      | web       |
      | installed |

  @APP-CLIENT-ID-UNIQUE @spec
  Scenario: Each registered application has a Client ID of its own
    Given a web application registered with the service
    And another web application registered with the service
    Then the two applications have different Client IDs
    And every registered application has a Client ID of its own

  @TOKEN-RESPONSE-ACCESS-TOKEN @spec
  Scenario Outline: The token response is a JSON document with an access token: <grant>
    Given the user has granted the <grant> to "<scope>"
    Then the code exchange answered a JSON document with the access token as a string

    Examples:
      | grant                              | scope         |
      | web application offline access     | profile email |
      | web application access             | profile       |
      | installed application access       | profile email |

  @TOKEN-RESPONSE-ACCESS-TOKEN @spec
  Scenario Outline: The refresh response is a JSON document with an access token: <kind>
    Given the user has just granted the <kind> offline access to "profile email"
    When the application refreshes the access token
    Then the refresh answered a JSON document with the access token as a string

    Examples:
      | kind                  |
      | web application       |
      | installed application |

  @TOKEN-RESPONSE-STATUS-200 @rfc
  Scenario: A code exchange is answered 200 OK
    Given the user has granted the web application offline access to "profile email"
    Then the code exchange answered 200 OK

  @TOKEN-RESPONSE-STATUS-200 @rfc
  Scenario: A refresh is answered 200 OK
    Given the user has just granted the web application offline access to "profile email"
    When the application refreshes the access token
    Then the refresh answered 200 OK

  @TOKEN-EXPIRES-IN-3600 @spec
  Scenario Outline: The access token of a code exchange lasts 3600 seconds: <grant>
    Given the user has granted the <grant> to "<scope>"
    Then the code exchange said the access token lasts 3600 seconds

    Examples:
      | grant                              | scope         |
      | web application offline access     | profile email |
      | web application access             | profile       |
      | installed application access       | profile email |

  @TOKEN-TYPE-BEARER @spec
  Scenario Outline: The access token of a code exchange is a bearer token: <grant>
    Given the user has granted the <grant> to "<scope>"
    Then the code exchange said the token type is Bearer

    Examples:
      | grant                              | scope         |
      | web application offline access     | profile email |
      | web application access             | profile       |
      | installed application access       | profile email |

  @TOKEN-TYPE-BEARER @spec
  Scenario Outline: The access token of a refresh is a bearer token: <kind>
    Given the user has just granted the <kind> offline access to "profile email"
    When the application refreshes the access token
    Then the refresh said the token type is Bearer

    Examples:
      | kind                  |
      | web application       |
      | installed application |

  @TOKEN-REFRESH-OFFLINE @spec
  Scenario: A web application with offline access receives a refresh token
    Given a web application registered with the service
    When the application asks for offline access to scopes the user has not approved before
    And the request asks to always show the consent page
    And the user approves the request
    Then the application receives an authorization code
    When the application exchanges the code for tokens
    Then the response carries a refresh token

  @TOKEN-REFRESH-OFFLINE @spec
  Scenario: Offline access with the default approval prompt gives a refresh token on the first exchange
    Given a web application registered with the service
    When the application asks for offline access to scopes the user has not approved before
    And the user approves the request on the consent page
    Then the application receives an authorization code
    When the application exchanges the code for tokens
    Then the response carries a refresh token

  @TOKEN-NO-REFRESH-ONLINE @spec
  Scenario: An online web application receives no refresh token
    Given an authorization code issued to the web application
    When the application exchanges the code for tokens
    Then the response carries no refresh token

  @TOKEN-CODE-SINGLE-USE @spec
  Scenario Outline: A code of the <kind> application is exchanged only once
    Given an authorization code issued to the <kind> application
    When the application exchanges the code for tokens
    And the application exchanges the code again
    Then the exchange is refused

    Examples:
      | kind      |
      | web       |
      | installed |

  @TOKEN-CODE-REPLAY-REVOKES @rfc
  Scenario Outline: Presenting a used code again revokes the tokens issued from it (<kind>)
    Given an authorization code issued to the <kind>
    When the application exchanges the code for tokens
    And the application exchanges the code again
    Then the access token from the first exchange no longer works
    And the refresh token from the first exchange no longer works

    Examples:
      | kind                                          |
      | web application for offline access            |
      | installed application                         |

  @TOKEN-REQUIRED-PARAMS @spec
  Scenario Outline: A code exchange without <field> is refused
    Given an authorization code issued to the web application
    When the application exchanges the code without the <field> field
    Then the exchange is refused

    Examples:
      | field         |
      | grant_type    |
      | code          |
      | client_id     |
      | client_secret |
      | redirect_uri  |

  @TOKEN-REQUIRED-PARAMS @spec
  Scenario: An installed application's code exchange without its client secret is refused
    Given an authorization code issued to the installed application
    When the application exchanges the code without the client_secret field
    Then the exchange is refused

  @TOKEN-ERR-INVALID-REQUEST @rfc
  Scenario: A code exchange without a code is answered invalid_request
    Given a web application registered with the service
    When the application asks for tokens with an authorization code grant that has no code
    Then the token endpoint answers 400 with the error "invalid_request"

  @AUTH-TOKEN-CLIENT-SECRET @spec
  Scenario Outline: A code exchange of the <kind> application with <secret> is refused
    Given an authorization code issued to the <kind> application
    When the application exchanges the code with <secret>
    Then the exchange is refused

    Examples:
      | kind       | secret                                            |
      | web        | a wrong client secret                             |
      | second web | its client secret with the last character changed |
      | second web | its client secret without the last character      |
      | installed  | its client secret with a character added          |
      | installed  | its client secret with the last character changed |

  @TOKEN-ERR-INVALID-CLIENT @rfc
  Scenario: Wrong client credentials are answered invalid_client
    Given an authorization code issued to the web application
    When the application exchanges the code with a wrong client secret
    Then the token endpoint answers with the error "invalid_client" as RFC 6749 describes

  @TOKEN-ERR-INVALID-GRANT @rfc
  Scenario: An unknown code is answered invalid_grant
    Given a web application registered with the service
    When the application exchanges a code the service never issued
    Then the token endpoint answers 400 with the error "invalid_grant"

  @TOKEN-ERR-INVALID-GRANT @rfc
  Scenario: A used code is answered invalid_grant
    Given an authorization code issued to the second web application
    When the application exchanges the code for tokens
    And the application exchanges the code again
    Then the token endpoint answers 400 with the error "invalid_grant"

  @TOKEN-ERR-INVALID-GRANT @rfc
  Scenario: A code issued to another application is answered invalid_grant
    Given an authorization code issued to the web application
    When another web application exchanges the code with its own credentials
    Then the token endpoint answers 400 with the error "invalid_grant"

  @TOKEN-ERR-INVALID-GRANT @rfc
  Scenario Outline: A code that only resembles the issued one is answered invalid_grant: <change>
    Given an authorization code issued to the installed application
    When the application exchanges the code <change>
    Then the token endpoint answers 400 with the error "invalid_grant"

    Examples:
      | change                          |
      | without its last character      |
      | with a character added          |

  @TOKEN-ERR-UNSUPPORTED-GRANT @rfc
  Scenario Outline: The grant type "<grant_type>", which some servers offer, is refused as unsupported or not for this client
    Given a web application registered with the service
    When the application asks for tokens with the grant type "<grant_type>"
    Then the token endpoint answers 400 with the error "unsupported_grant_type" or "unauthorized_client"

    Examples:
      | grant_type         |
      | password           |
      | client_credentials |

  @TOKEN-ERR-UNSUPPORTED-GRANT @rfc
  Scenario: A grant type no server offers is answered unsupported_grant_type
    Given a web application registered with the service
    When the application asks for tokens with the grant type "urn:example:no-such-grant"
    Then the token endpoint answers 400 with the error "unsupported_grant_type"

  @TOKEN-REDIRECT-URI-REGISTERED @spec
  Scenario Outline: A code exchange with a redirect URI that is not exactly the registered one is refused: <change>
    Given an authorization code issued to the <kind> application
    When the application exchanges the code with the registered redirect URI changed <change>
    Then the exchange is refused

    Examples:
      | kind       | change                         |
      | web        | to another host                |
      | second web | by a path segment added        |
      | second web | by an extra query parameter    |
      | installed  | to another host                |
      | installed  | by a user name before the host |

  @TOKEN-REDIRECT-URI-SAME @rfc
  Scenario: A code is exchanged only with the redirect URI it was issued for
    Given an authorization code issued to the installed application
    When the application exchanges the code with another redirect URI it may use
    Then the exchange is refused

  @TOKEN-TYPE-PARAM @spec
  Scenario: A code exchange asking for a bearer token is accepted
    Given an authorization code issued to the web application
    When the application exchanges the code with the token type "bearer"
    Then the application receives an access token

  @TOKEN-TYPE-PARAM @VERSION-TOKEN-TYPE-BEARER-ONLY @spec
  Scenario: A code exchange asking for a MAC token is refused
    Given an authorization code issued to the web application
    When the application exchanges the code with the token type "mac"
    Then the exchange is refused

  @TOKEN-TYPE-PARAM @spec
  Scenario: A code exchange asking for an unknown token type is refused
    Given an authorization code issued to the web application
    When the application exchanges the code with the token type "jwt"
    Then the exchange is refused

  @TOKEN-CROSS-CLIENT-CODE @rfc
  Scenario: A code issued to one application cannot be exchanged by another
    Given an authorization code issued to the web application
    When another web application exchanges the code with its own credentials
    Then the exchange is refused

  @TOKEN-NO-STORE @rfc
  Scenario: Token responses are not to be cached
    Given an authorization code issued to the web application
    When the application exchanges the code for tokens
    Then the token response forbids caching
    When the application exchanges the code again
    Then the token response forbids caching

  @TOKEN-NO-STORE @rfc
  Scenario: Refresh responses are not to be cached
    Given the user has just granted the web application offline access to "profile email"
    When the application refreshes the access token
    Then the token response forbids caching

  @TOKEN-NO-QUERY-PARAMS @rfc
  Scenario: The token endpoint refuses credentials in the URL
    Given an authorization code issued to the web application
    When the application exchanges the code with all parameters in the URL query string
    Then the exchange is refused
