Feature: Code exchange
  The application exchanges the authorization code at the token endpoint, authenticating with
  its Client ID and Client Secret, for an access token and, for an installed application or a
  web application with offline access, a refresh token. Every kind of application is tried,
  with and without PKCE, and every access token issued is presented each way a token travels.

  @TOKEN-CODE-EXCHANGE @spec
  Scenario Outline: A code of the <client> for a request with <pkce> gives an access token the service accepts
    Given an authorization code issued to the <client> for a request with <pkce>
    When the application exchanges the code
    Then the application receives an access token
    And the access token is accepted by the service

    Examples:
      | client                  | pkce                   |
      | online web application  | an S256 code challenge |
      | online web application  | no code challenge      |
      | offline web application | an S256 code challenge |
      | offline web application | no code challenge      |
      | installed application   | an S256 code challenge |
      | installed application   | no code challenge      |

  @APP-TYPES @spec
  Scenario Outline: The <client> completes the authorization code flow for a request with <pkce>
    Given an authorization code issued to the <client> for a request with <pkce>
    When the application exchanges the code
    Then the application receives an access token

    Examples:
      | client                  | pkce                   |
      | online web application  | an S256 code challenge |
      | online web application  | no code challenge      |
      | offline web application | an S256 code challenge |
      | offline web application | no code challenge      |
      | installed application   | an S256 code challenge |
      | installed application   | no code challenge      |

  @APP-CLIENT-ID-UNIQUE @spec
  Scenario: Each registered application has a Client ID of its own
    Given a web application registered with the service
    And another web application registered with the service
    Then the two applications have different Client IDs
    And every registered application has a Client ID of its own

  @TOKEN-RESPONSE-ACCESS-TOKEN @spec
  Scenario Outline: The answer to the <grant> of the <client> is a JSON document with an access token
    Given the user has just granted the <client> access to "profile email"
    When the application holds tokens from the <grant>
    Then the <grant> answered a JSON document with the access token as a string

    Examples:
      | client                  | grant         |
      | online web application  | code exchange |
      | offline web application | code exchange |
      | offline web application | refresh       |
      | installed application   | code exchange |
      | installed application   | refresh       |

  @TOKEN-RESPONSE-STATUS-200 @rfc
  Scenario Outline: The <grant> of the <client> is answered 200 OK
    Given the user has just granted the <client> access to "profile email"
    When the application holds tokens from the <grant>
    Then the <grant> answered 200 OK

    Examples:
      | client                  | grant         |
      | online web application  | code exchange |
      | offline web application | code exchange |
      | offline web application | refresh       |
      | installed application   | code exchange |
      | installed application   | refresh       |

  @TOKEN-EXPIRES-IN-3600 @spec
  Scenario Outline: The access token of the <grant> of the <client> lasts 3600 seconds
    Given the user has just granted the <client> access to "profile email"
    When the application holds tokens from the <grant>
    Then the <grant> said the access token lasts 3600 seconds

    Examples:
      | client                  | grant         |
      | online web application  | code exchange |
      | offline web application | code exchange |
      | offline web application | refresh       |
      | installed application   | code exchange |
      | installed application   | refresh       |

  @TOKEN-TYPE-BEARER @spec
  Scenario Outline: The access token of the <grant> of the <client> is a bearer token
    Given the user has just granted the <client> access to "profile email"
    When the application holds tokens from the <grant>
    Then the <grant> said the token type is Bearer

    Examples:
      | client                  | grant         |
      | online web application  | code exchange |
      | offline web application | code exchange |
      | offline web application | refresh       |
      | installed application   | code exchange |
      | installed application   | refresh       |

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
    Given an authorization code issued to the online web application
    When the application exchanges the code for tokens
    Then the response carries no refresh token

  @TOKEN-CODE-SINGLE-USE @spec
  Scenario Outline: A code of the <client> for a request with <pkce> is exchanged only once
    Given an authorization code issued to the <client> for a request with <pkce>
    When the application exchanges the code for tokens
    And the application exchanges the code again
    Then the exchange is refused

    Examples:
      | client                  | pkce                   |
      | online web application  | an S256 code challenge |
      | online web application  | no code challenge      |
      | offline web application | an S256 code challenge |
      | offline web application | no code challenge      |
      | installed application   | an S256 code challenge |
      | installed application   | no code challenge      |

  @TOKEN-CODE-REPLAY-REVOKES @rfc
  Scenario Outline: A used code of the <client> (<pkce>) presented again revokes the tokens issued from it, the access token passed <delivery>
    Given an authorization code issued to the <client> for a request with <pkce>
    When the application exchanges the code for tokens
    And the application exchanges the code again
    Then the access token from the first exchange no longer works when passed <delivery>
    And the refresh token from the first exchange no longer works

    Examples:
      | client                  | pkce                   | delivery                    |
      | online web application  | an S256 code challenge | in the Authorization header |
      | offline web application | no code challenge      | in a form body              |
      | installed application   | an S256 code challenge | in the query string         |
      | online web application  | no code challenge      | in the query string         |
      | installed application   | no code challenge      | in the Authorization header |
      | online web application  | an S256 code challenge | in a form body              |
      | offline web application | an S256 code challenge | in the Authorization header |
      | offline web application | an S256 code challenge | in the query string         |
      | installed application   | an S256 code challenge | in a form body              |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | pkce                   | delivery                    |
      | online web application  | an S256 code challenge | in the query string         |
      | online web application  | no code challenge      | in the Authorization header |
      | online web application  | no code challenge      | in a form body              |
      | offline web application | an S256 code challenge | in a form body              |
      | offline web application | no code challenge      | in the Authorization header |
      | offline web application | no code challenge      | in the query string         |
      | installed application   | an S256 code challenge | in the Authorization header |
      | installed application   | no code challenge      | in a form body              |
      | installed application   | no code challenge      | in the query string         |

  @TOKEN-REQUIRED-PARAMS @spec
  Scenario Outline: A code exchange of the <client> (<pkce>) without <missing> is refused
    Given an authorization code issued to the <client> for a request with <pkce>
    When the application exchanges the code without <missing>
    Then the code exchange is refused

    Examples:
      | client                  | pkce                   | missing                 |
      | online web application  | an S256 code challenge | the grant_type field    |
      | offline web application | no code challenge      | the code field          |
      | installed application   | an S256 code challenge | the client_id field     |
      | online web application  | no code challenge      | the client_secret field |
      | offline web application | an S256 code challenge | the redirect_uri field  |
      | installed application   | no code challenge      | the grant_type field    |
      | online web application  | an S256 code challenge | the code field          |
      | online web application  | no code challenge      | the client_id field     |
      | online web application  | no code challenge      | the redirect_uri field  |
      | offline web application | an S256 code challenge | the client_secret field |
      | offline web application | an S256 code challenge | the grant_type field    |
      | offline web application | an S256 code challenge | the client_id field     |
      | installed application   | an S256 code challenge | the code field          |
      | installed application   | an S256 code challenge | the client_secret field |
      | installed application   | an S256 code challenge | the redirect_uri field  |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | pkce                   | missing                 |
      | online web application  | an S256 code challenge | the client_id field     |
      | online web application  | an S256 code challenge | the client_secret field |
      | online web application  | an S256 code challenge | the redirect_uri field  |
      | online web application  | no code challenge      | the grant_type field    |
      | online web application  | no code challenge      | the code field          |
      | offline web application | an S256 code challenge | the code field          |
      | offline web application | no code challenge      | the grant_type field    |
      | offline web application | no code challenge      | the client_id field     |
      | offline web application | no code challenge      | the client_secret field |
      | offline web application | no code challenge      | the redirect_uri field  |
      | installed application   | an S256 code challenge | the grant_type field    |
      | installed application   | no code challenge      | the code field          |
      | installed application   | no code challenge      | the client_id field     |
      | installed application   | no code challenge      | the client_secret field |
      | installed application   | no code challenge      | the redirect_uri field  |

  @TOKEN-ERR-INVALID-REQUEST @rfc
  Scenario Outline: A code exchange of the <client> without <missing> is answered invalid_request
    Given an authorization code issued to the <client>
    When the application exchanges the code without <missing>
    Then the token endpoint answers 400 with the error "invalid_request"

    Examples:
      | client                  | missing                |
      | online web application  | the grant_type field   |
      | offline web application | the code field         |
      | installed application   | the redirect_uri field |
      | installed application   | the grant_type field   |
      | online web application  | the code field         |
      | installed application   | the code field         |
      | online web application  | the redirect_uri field |
      | offline web application | the redirect_uri field |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | missing              |
      | offline web application | the grant_type field |

  @TOKEN-ERR-INVALID-REQUEST @rfc
  Scenario Outline: A refresh of the <client> without <missing> is answered invalid_request
    Given the user has just granted the <client> access to "profile email"
    When the application refreshes the access token without <missing>
    Then the token endpoint answers 400 with the error "invalid_request"

    Examples:
      | client                  | missing                 |
      | offline web application | the grant_type field    |
      | installed application   | the refresh_token field |
      | offline web application | the refresh_token field |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                | missing              |
      | installed application | the grant_type field |

  @AUTH-TOKEN-CLIENT-SECRET @spec
  Scenario Outline: A code exchange of the <client> (<pkce>) with <near_miss> is refused
    Given an authorization code issued to the <client> for a request with <pkce>
    When the application exchanges the code with <near_miss>
    Then the code exchange is refused

    Examples:
      | client                  | pkce                   | near_miss                                         |
      | online web application  | an S256 code challenge | a wrong client secret                             |
      | offline web application | no code challenge      | an empty client secret                            |
      | installed application   | an S256 code challenge | its client secret with the last character changed |
      | online web application  | no code challenge      | its client secret without the last character      |
      | offline web application | an S256 code challenge | its client secret with a character added          |
      | installed application   | no code challenge      | the first half of its client secret               |
      | online web application  | an S256 code challenge | its client secret in another case                 |
      | online web application  | an S256 code challenge | an empty client secret                            |
      | online web application  | no code challenge      | its client secret with the last character changed |
      | online web application  | no code challenge      | its client secret with a character added          |
      | online web application  | an S256 code challenge | the first half of its client secret               |
      | installed application   | no code challenge      | a wrong client secret                             |
      | installed application   | an S256 code challenge | its client secret without the last character      |
      | installed application   | no code challenge      | its client secret in another case                 |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | pkce                   | near_miss                                         |
      | online web application  | no code challenge      | a wrong client secret                             |
      | online web application  | no code challenge      | an empty client secret                            |
      | online web application  | an S256 code challenge | its client secret with the last character changed |
      | online web application  | an S256 code challenge | its client secret without the last character      |
      | online web application  | an S256 code challenge | its client secret with a character added          |
      | online web application  | no code challenge      | the first half of its client secret               |
      | online web application  | no code challenge      | its client secret in another case                 |
      | offline web application | an S256 code challenge | a wrong client secret                             |
      | offline web application | no code challenge      | a wrong client secret                             |
      | offline web application | an S256 code challenge | an empty client secret                            |
      | offline web application | an S256 code challenge | its client secret with the last character changed |
      | offline web application | no code challenge      | its client secret with the last character changed |
      | offline web application | an S256 code challenge | its client secret without the last character      |
      | offline web application | no code challenge      | its client secret without the last character      |
      | offline web application | no code challenge      | its client secret with a character added          |
      | offline web application | an S256 code challenge | the first half of its client secret               |
      | offline web application | no code challenge      | the first half of its client secret               |
      | offline web application | an S256 code challenge | its client secret in another case                 |
      | offline web application | no code challenge      | its client secret in another case                 |
      | installed application   | an S256 code challenge | a wrong client secret                             |
      | installed application   | an S256 code challenge | an empty client secret                            |
      | installed application   | no code challenge      | an empty client secret                            |
      | installed application   | no code challenge      | its client secret with the last character changed |
      | installed application   | no code challenge      | its client secret without the last character      |
      | installed application   | an S256 code challenge | its client secret with a character added          |
      | installed application   | no code challenge      | its client secret with a character added          |
      | installed application   | an S256 code challenge | the first half of its client secret               |
      | installed application   | an S256 code challenge | its client secret in another case                 |

  @AUTH-TOKEN-CLIENT-SECRET @spec
  Scenario Outline: A refresh of the <client> with <near_miss> is refused
    Given the user has just granted the <client> access to "profile email"
    When the application refreshes the access token with <near_miss>
    Then the refresh is refused

    Examples:
      | client                  | near_miss                                         |
      | offline web application | a wrong client secret                             |
      | installed application   | an empty client secret                            |
      | offline web application | its client secret with the last character changed |
      | offline web application | its client secret without the last character      |
      | offline web application | the first half of its client secret               |
      | offline web application | its client secret in another case                 |
      | installed application   | its client secret with a character added          |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | near_miss                                         |
      | offline web application | an empty client secret                            |
      | offline web application | its client secret with a character added          |
      | installed application   | a wrong client secret                             |
      | installed application   | its client secret with the last character changed |
      | installed application   | its client secret without the last character      |
      | installed application   | the first half of its client secret               |
      | installed application   | its client secret in another case                 |

  @TOKEN-ERR-INVALID-CLIENT @rfc
  Scenario Outline: A code exchange of the <client> (<pkce>) with <near_miss> is answered invalid_client
    Given an authorization code issued to the <client> for a request with <pkce>
    When the application exchanges the code with <near_miss>
    Then the token endpoint answers with the error "invalid_client" as RFC 6749 describes

    Examples:
      | client                  | pkce                   | near_miss                                         |
      | online web application  | an S256 code challenge | a wrong client secret                             |
      | offline web application | no code challenge      | its client secret with the last character changed |
      | installed application   | an S256 code challenge | its client secret without the last character      |
      | online web application  | no code challenge      | its client secret with a character added          |
      | offline web application | an S256 code challenge | the first half of its client secret               |
      | installed application   | no code challenge      | its client secret in another case                 |
      | online web application  | an S256 code challenge | its client secret with the last character changed |
      | online web application  | no code challenge      | its client secret without the last character      |
      | online web application  | no code challenge      | the first half of its client secret               |
      | online web application  | an S256 code challenge | its client secret in another case                 |
      | installed application   | no code challenge      | a wrong client secret                             |
      | installed application   | an S256 code challenge | its client secret with a character added          |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | pkce                   | near_miss                                         |
      | online web application  | no code challenge      | a wrong client secret                             |
      | online web application  | no code challenge      | its client secret with the last character changed |
      | online web application  | an S256 code challenge | its client secret without the last character      |
      | online web application  | an S256 code challenge | its client secret with a character added          |
      | online web application  | an S256 code challenge | the first half of its client secret               |
      | online web application  | no code challenge      | its client secret in another case                 |
      | offline web application | an S256 code challenge | a wrong client secret                             |
      | offline web application | no code challenge      | a wrong client secret                             |
      | offline web application | an S256 code challenge | its client secret with the last character changed |
      | offline web application | an S256 code challenge | its client secret without the last character      |
      | offline web application | no code challenge      | its client secret without the last character      |
      | offline web application | an S256 code challenge | its client secret with a character added          |
      | offline web application | no code challenge      | its client secret with a character added          |
      | offline web application | no code challenge      | the first half of its client secret               |
      | offline web application | an S256 code challenge | its client secret in another case                 |
      | offline web application | no code challenge      | its client secret in another case                 |
      | installed application   | an S256 code challenge | a wrong client secret                             |
      | installed application   | an S256 code challenge | its client secret with the last character changed |
      | installed application   | no code challenge      | its client secret with the last character changed |
      | installed application   | no code challenge      | its client secret without the last character      |
      | installed application   | no code challenge      | its client secret with a character added          |
      | installed application   | an S256 code challenge | the first half of its client secret               |
      | installed application   | no code challenge      | the first half of its client secret               |
      | installed application   | an S256 code challenge | its client secret in another case                 |

  @TOKEN-ERR-INVALID-CLIENT @rfc
  Scenario Outline: A refresh of the <client> with <near_miss> is answered invalid_client
    Given the user has just granted the <client> access to "profile email"
    When the application refreshes the access token with <near_miss>
    Then the token endpoint answers with the error "invalid_client" as RFC 6749 describes

    Examples:
      | client                  | near_miss                                         |
      | offline web application | a wrong client secret                             |
      | installed application   | its client secret with the last character changed |
      | offline web application | its client secret without the last character      |
      | offline web application | its client secret with a character added          |
      | offline web application | its client secret in another case                 |
      | installed application   | the first half of its client secret               |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | near_miss                                         |
      | offline web application | its client secret with the last character changed |
      | offline web application | the first half of its client secret               |
      | installed application   | a wrong client secret                             |
      | installed application   | its client secret without the last character      |
      | installed application   | its client secret with a character added          |
      | installed application   | its client secret in another case                 |

  @TOKEN-ERR-INVALID-GRANT @rfc
  Scenario Outline: A code exchange of the <client> (<pkce>) with a code <invalidity> is answered invalid_grant
    Given an authorization code issued to the <client> for a request with <pkce>
    When the service is asked to exchange a code <invalidity>
    Then the token endpoint answers 400 with the error "invalid_grant"

    Examples:
      | client                  | pkce                   | invalidity                      |
      | online web application  | an S256 code challenge | that the service never issued   |
      | offline web application | no code challenge      | with its last character changed |
      | installed application   | an S256 code challenge | without its last character      |
      | online web application  | no code challenge      | with a character added          |
      | offline web application | an S256 code challenge | that was already used           |
      | installed application   | no code challenge      | issued to another application   |
      | online web application  | an S256 code challenge | with its last character changed |
      | online web application  | no code challenge      | without its last character      |
      | online web application  | no code challenge      | that was already used           |
      | online web application  | an S256 code challenge | issued to another application   |
      | installed application   | no code challenge      | that the service never issued   |
      | installed application   | an S256 code challenge | with a character added          |
      | installed application   | an S256 code challenge | that was already used           |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | pkce                   | invalidity                      |
      | online web application  | no code challenge      | that the service never issued   |
      | online web application  | no code challenge      | with its last character changed |
      | online web application  | an S256 code challenge | without its last character      |
      | online web application  | an S256 code challenge | with a character added          |
      | online web application  | an S256 code challenge | that was already used           |
      | online web application  | no code challenge      | issued to another application   |
      | offline web application | an S256 code challenge | that the service never issued   |
      | offline web application | no code challenge      | that the service never issued   |
      | offline web application | an S256 code challenge | with its last character changed |
      | offline web application | an S256 code challenge | without its last character      |
      | offline web application | no code challenge      | without its last character      |
      | offline web application | an S256 code challenge | with a character added          |
      | offline web application | no code challenge      | with a character added          |
      | offline web application | no code challenge      | that was already used           |
      | offline web application | an S256 code challenge | issued to another application   |
      | offline web application | no code challenge      | issued to another application   |
      | installed application   | an S256 code challenge | that the service never issued   |
      | installed application   | an S256 code challenge | with its last character changed |
      | installed application   | no code challenge      | with its last character changed |
      | installed application   | no code challenge      | without its last character      |
      | installed application   | no code challenge      | with a character added          |
      | installed application   | no code challenge      | that was already used           |
      | installed application   | an S256 code challenge | issued to another application   |

  @TOKEN-ERR-INVALID-GRANT @rfc
  Scenario Outline: A refresh of the <client> with a refresh token <invalidity> is answered invalid_grant
    Given the user has just granted the <client> access to "profile email"
    When the service is asked to refresh with a refresh token <invalidity>
    Then the token endpoint answers 400 with the error "invalid_grant"

    Examples:
      | client                  | invalidity                      |
      | offline web application | that the service never issued   |
      | installed application   | with its last character changed |
      | offline web application | without its last character      |
      | offline web application | with a character added          |
      | offline web application | issued to another application   |
      | offline web application | that was revoked                |
      | installed application   | that was revoked                |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | invalidity                      |
      | offline web application | with its last character changed |
      | installed application   | that the service never issued   |
      | installed application   | without its last character      |
      | installed application   | with a character added          |
      | installed application   | issued to another application   |

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
  Scenario Outline: A code exchange of the <client> (<pkce>) with the registered redirect URI changed <redirect_change> is refused
    Given an authorization code issued to the <client> for a request with <pkce>
    When the application exchanges the code with the registered redirect URI changed <redirect_change>
    Then the code exchange is refused

    Examples:
      | client                  | pkce                   | redirect_change                |
      | online web application  | an S256 code challenge | to another host                |
      | offline web application | no code challenge      | by a path segment added        |
      | installed application   | an S256 code challenge | by an extra query parameter    |
      | online web application  | no code challenge      | by a user name before the host |
      | offline web application | an S256 code challenge | by a user name before the host |
      | installed application   | no code challenge      | to another host                |
      | online web application  | an S256 code challenge | by a path segment added        |
      | online web application  | no code challenge      | by an extra query parameter    |
      | offline web application | an S256 code challenge | to another host                |
      | offline web application | an S256 code challenge | by an extra query parameter    |
      | installed application   | an S256 code challenge | by a path segment added        |
      | installed application   | an S256 code challenge | by a user name before the host |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | pkce                   | redirect_change                |
      | online web application  | an S256 code challenge | by an extra query parameter    |
      | online web application  | an S256 code challenge | by a user name before the host |
      | online web application  | no code challenge      | to another host                |
      | online web application  | no code challenge      | by a path segment added        |
      | offline web application | an S256 code challenge | by a path segment added        |
      | offline web application | no code challenge      | to another host                |
      | offline web application | no code challenge      | by an extra query parameter    |
      | offline web application | no code challenge      | by a user name before the host |
      | installed application   | an S256 code challenge | to another host                |
      | installed application   | no code challenge      | by a path segment added        |
      | installed application   | no code challenge      | by an extra query parameter    |
      | installed application   | no code challenge      | by a user name before the host |

  @TOKEN-REDIRECT-URI-SAME @rfc
  Scenario Outline: A code is exchanged only with the redirect URI it was issued for (<pkce>)
    Given an authorization code issued to the installed application for a request with <pkce>
    When the application exchanges the code with another redirect URI it may use
    Then the code exchange is refused

    Examples:
      | pkce                   |
      | an S256 code challenge |
      | no code challenge      |

  @TOKEN-TYPE-PARAM @spec
  Scenario Outline: A code exchange of the <client> asking for a bearer token is accepted
    Given an authorization code issued to the <client>
    When the application exchanges the code with the token type "<token_type>"
    Then the application receives an access token

    Examples:
      | client                 | token_type |
      | online web application | bearer     |
      | installed application  | bearer     |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | token_type |
      | offline web application | bearer     |

  @TOKEN-TYPE-PARAM @spec
  Scenario Outline: A refresh of the <client> asking for a bearer token is accepted
    Given the user has just granted the <client> access to "profile email"
    When the application refreshes the access token with the token type "<token_type>"
    Then the application receives a new access token

    Examples:
      | client                  | token_type |
      | offline web application | bearer     |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                | token_type |
      | installed application | bearer     |

  @TOKEN-TYPE-PARAM @spec
  Scenario Outline: A code exchange of the <client> asking for the token type <token_type> is refused
    Given an authorization code issued to the <client>
    When the application exchanges the code with the token type "<token_type>"
    Then the code exchange is refused

    Examples:
      | client                  | token_type |
      | offline web application | mac        |
      | installed application   | jwt        |
      | online web application  | mac        |
      | online web application  | jwt        |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | token_type |
      | offline web application | jwt        |
      | installed application   | mac        |

  @TOKEN-TYPE-PARAM @spec
  Scenario Outline: A refresh of the <client> asking for the token type <token_type> is refused
    Given the user has just granted the <client> access to "profile email"
    When the application refreshes the access token with the token type "<token_type>"
    Then the refresh is refused

    Examples:
      | client                  | token_type |
      | installed application   | mac        |
      | offline web application | jwt        |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | token_type |
      | offline web application | mac        |
      | installed application   | jwt        |

  @VERSION-TOKEN-TYPE-BEARER-ONLY @spec
  Scenario: A code exchange asking for a MAC token is refused
    Given an authorization code issued to the online web application
    When the application exchanges the code with the token type "mac"
    Then the code exchange is refused

  @TOKEN-CROSS-CLIENT-CODE @rfc
  Scenario Outline: A code issued to the <client> (<pkce>) cannot be exchanged by another application
    Given an authorization code issued to the <client> for a request with <pkce>
    When another web application exchanges the code with its own credentials
    Then the code exchange is refused

    Examples:
      | client                  | pkce                   |
      | online web application  | an S256 code challenge |
      | online web application  | no code challenge      |
      | offline web application | an S256 code challenge |
      | offline web application | no code challenge      |
      | installed application   | an S256 code challenge |
      | installed application   | no code challenge      |

  @TOKEN-NO-STORE @rfc
  Scenario Outline: The answer to a <grant> of the <client> that <answer> is not to be cached
    Given the user has just granted the <client> access to "profile email"
    When the application's <grant> <answer>
    Then the token response forbids caching

    Examples:
      | client                  | grant         | answer     |
      | online web application  | code exchange | is granted |
      | online web application  | code exchange | is refused |
      | offline web application | code exchange | is granted |
      | offline web application | code exchange | is refused |
      | offline web application | refresh       | is granted |
      | offline web application | refresh       | is refused |
      | installed application   | code exchange | is granted |
      | installed application   | code exchange | is refused |
      | installed application   | refresh       | is granted |
      | installed application   | refresh       | is refused |

  @TOKEN-NO-QUERY-PARAMS @rfc
  Scenario Outline: The token endpoint refuses a code exchange of the <client> (<pkce>) with its parameters in the URL of a <method> request
    Given an authorization code issued to the <client> for a request with <pkce>
    When the application exchanges the code with all parameters in the URL query string of a <method> request
    Then the code exchange is refused

    Examples:
      | client                  | pkce                   | method |
      | online web application  | an S256 code challenge | GET    |
      | online web application  | no code challenge      | GET    |
      | offline web application | an S256 code challenge | GET    |
      | offline web application | no code challenge      | GET    |
      | installed application   | an S256 code challenge | GET    |
      | installed application   | no code challenge      | GET    |
      | online web application  | an S256 code challenge | POST   |
      | online web application  | no code challenge      | POST   |
      | offline web application | an S256 code challenge | POST   |
      | offline web application | no code challenge      | POST   |
      | installed application   | an S256 code challenge | POST   |
      | installed application   | no code challenge      | POST   |
