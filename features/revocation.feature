Feature: Revocation
  An application revokes tokens it no longer needs (RFC 7009). Revoking an access token of an
  installed or offline application revokes only that token; revoking a refresh token, or the
  access token of an online application, revokes the whole grant. The user can also revoke an
  application on the website, whatever the application revoked before. Every scenario here
  changes its grant, so each starts from a grant of its own.

  @VERSION-REVOCATION @spec
  Scenario: The deployment offers token revocation
    Given a web application registered with the service
    When the application revokes a token the service never issued
    Then the service offers token revocation

  @REVOKE-EMPTY-200 @spec
  Scenario Outline: A revocation of <token_kind> of the <client> is answered 200 with an empty body
    Given the user has just granted the <client> access to "profile rating"
    When the application revokes <token_kind>
    Then the revocation is answered 200 with an empty body

    Examples:
      | client                  | token_kind        |
      | online web application  | the access token  |
      | offline web application | the access token  |
      | offline web application | the refresh token |
      | installed application   | the access token  |
      | installed application   | the refresh token |

  @REVOKE-INVALID-TOKEN-200 @spec
  Scenario Outline: The revocation of a token <invalidity> is still answered 200 with an empty body
    Given the user has just granted the offline web application access to "profile rating"
    When the application revokes a token <invalidity>
    Then the revocation is answered 200 with an empty body

    Examples:
      | invalidity                      |
      | that the service never issued   |
      | with its last character changed |
      | that was revoked                |

  @REVOKE-ACCESS-KEEPS-REFRESH @spec
  Scenario Outline: Revoking the access token of the <client> revokes only that token: one <origin>, passed <delivery>
    Given the user has just granted the <client> access to "profile rating"
    And the application holds an access token <origin>
    And the application has revoked the access token
    Then the access token no longer works when passed <delivery>
    And the refresh token still yields new access tokens

    Examples:
      | client                  | origin                 | delivery                    |
      | offline web application | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in a form body              |
      | offline web application | from the code exchange | in the query string         |
      | offline web application | from a refresh         | in the Authorization header |
      | offline web application | from a refresh         | in a form body              |
      | offline web application | from a refresh         | in the query string         |
      | installed application   | from the code exchange | in the Authorization header |
      | installed application   | from the code exchange | in a form body              |
      | installed application   | from the code exchange | in the query string         |
      | installed application   | from a refresh         | in the Authorization header |
      | installed application   | from a refresh         | in a form body              |
      | installed application   | from a refresh         | in the query string         |

  @REVOKE-REFRESH-WHOLE-GRANT @spec
  Scenario Outline: Revoking the refresh token of the <client> revokes the whole grant: the access token <origin>, passed <delivery>
    Given the user has just granted the <client> access to "profile rating"
    And the application holds an access token <origin>
    And the application has revoked the refresh token
    Then the refresh token no longer works
    And the access token no longer works when passed <delivery>

    Examples:
      | client                  | origin                 | delivery                    |
      | offline web application | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in a form body              |
      | offline web application | from the code exchange | in the query string         |
      | offline web application | from a refresh         | in the Authorization header |
      | offline web application | from a refresh         | in a form body              |
      | offline web application | from a refresh         | in the query string         |
      | installed application   | from the code exchange | in the Authorization header |
      | installed application   | from the code exchange | in a form body              |
      | installed application   | from the code exchange | in the query string         |
      | installed application   | from a refresh         | in the Authorization header |
      | installed application   | from a refresh         | in a form body              |
      | installed application   | from a refresh         | in the query string         |

  @REVOKE-ONLINE-WHOLE-GRANT @spec
  Scenario Outline: Revoking the access token of an online application revokes the whole grant, the token passed <delivery>
    Given the user has just granted the online web application access to "profile rating"
    And the application has revoked the access token
    Then the access token no longer works when passed <delivery>
    And no refresh token of the grant works either

    Examples:
      | delivery                    |
      | in the Authorization header |
      | in a form body              |
      | in the query string         |

  @REVOKE-POST-ONLY @spec
  Scenario Outline: The revocation endpoint takes POST only: <token_kind> of the <client> in a GET request
    Given the user has just granted the <client> access to "profile rating"
    When the application revokes <token_kind> with a GET request
    Then the revocation is not answered with success
    And <token_kind> still works

    Examples:
      | client                  | token_kind        |
      | online web application  | the access token  |
      | offline web application | the access token  |
      | offline web application | the refresh token |
      | installed application   | the access token  |
      | installed application   | the refresh token |

  @REVOKE-REQUIRED-PARAMS @spec
  Scenario Outline: A revocation of <token_kind> of the <client> without <missing> is not answered with success
    Given the user has just granted the <client> access to "profile rating"
    When the application revokes <token_kind> without <missing>
    Then the revocation is not answered with success
    And <token_kind> still works

    Examples:
      | client                  | token_kind        | missing                 |
      | online web application  | the access token  | the token field         |
      | offline web application | the refresh token | the client_id field     |
      | installed application   | the access token  | the client_secret field |
      | installed application   | the refresh token | the token field         |
      | online web application  | the access token  | the client_id field     |
      | offline web application | the access token  | the token field         |
      | offline web application | the refresh token | the client_secret field |
      | online web application  | the access token  | the client_secret field |
      | installed application   | the access token  | the client_id field     |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | token_kind        | missing                 |
      | offline web application | the access token  | the client_id field     |
      | offline web application | the access token  | the client_secret field |
      | offline web application | the refresh token | the token field         |
      | installed application   | the access token  | the token field         |
      | installed application   | the refresh token | the client_id field     |
      | installed application   | the refresh token | the client_secret field |

  @AUTH-REVOKE-CLIENT-SECRET @spec
  Scenario Outline: A revocation of <token_kind> of the <client> (one <origin>) with <near_miss> revokes nothing
    Given the user has just granted the <client> access to "profile rating"
    And the application holds an access token <origin>
    When the application revokes <token_kind> with <near_miss>
    Then the revocation is not answered with success
    And <token_kind> still works

    Examples:
      | client                  | origin                 | token_kind        | near_miss                                         |
      | online web application  | from the code exchange | the access token  | a wrong client secret                             |
      | offline web application | from a refresh         | the refresh token | an empty client secret                            |
      | installed application   | from a refresh         | the access token  | its client secret with the last character changed |
      | installed application   | from the code exchange | the refresh token | its client secret without the last character      |
      | offline web application | from the code exchange | the access token  | its client secret with a character added          |
      | online web application  | from the code exchange | the access token  | the first half of its client secret               |
      | online web application  | from the code exchange | the access token  | its client secret in another case                 |
      | online web application  | from the code exchange | the access token  | an empty client secret                            |
      | offline web application | from a refresh         | the refresh token | a wrong client secret                             |
      | offline web application | from the code exchange | the refresh token | its client secret with the last character changed |
      | offline web application | from a refresh         | the access token  | its client secret without the last character      |
      | offline web application | from a refresh         | the refresh token | the first half of its client secret               |
      | offline web application | from a refresh         | the refresh token | its client secret in another case                 |
      | installed application   | from a refresh         | the refresh token | its client secret with a character added          |
      | online web application  | from the code exchange | the access token  | its client secret with the last character changed |
      | online web application  | from the code exchange | the access token  | its client secret without the last character      |
      | online web application  | from the code exchange | the access token  | its client secret with a character added          |
      | installed application   | from the code exchange | the access token  | a wrong client secret                             |
      | installed application   | from the code exchange | the access token  | an empty client secret                            |
      | installed application   | from the code exchange | the access token  | the first half of its client secret               |
      | installed application   | from the code exchange | the access token  | its client secret in another case                 |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin                 | token_kind        | near_miss                                         |
      | offline web application | from the code exchange | the access token  | a wrong client secret                             |
      | offline web application | from a refresh         | the access token  | a wrong client secret                             |
      | offline web application | from the code exchange | the refresh token | a wrong client secret                             |
      | offline web application | from the code exchange | the access token  | an empty client secret                            |
      | offline web application | from a refresh         | the access token  | an empty client secret                            |
      | offline web application | from the code exchange | the refresh token | an empty client secret                            |
      | offline web application | from the code exchange | the access token  | its client secret with the last character changed |
      | offline web application | from a refresh         | the access token  | its client secret with the last character changed |
      | offline web application | from a refresh         | the refresh token | its client secret with the last character changed |
      | offline web application | from the code exchange | the access token  | its client secret without the last character      |
      | offline web application | from the code exchange | the refresh token | its client secret without the last character      |
      | offline web application | from a refresh         | the refresh token | its client secret without the last character      |
      | offline web application | from a refresh         | the access token  | its client secret with a character added          |
      | offline web application | from the code exchange | the refresh token | its client secret with a character added          |
      | offline web application | from a refresh         | the refresh token | its client secret with a character added          |
      | offline web application | from the code exchange | the access token  | the first half of its client secret               |
      | offline web application | from a refresh         | the access token  | the first half of its client secret               |
      | offline web application | from the code exchange | the refresh token | the first half of its client secret               |
      | offline web application | from the code exchange | the access token  | its client secret in another case                 |
      | offline web application | from a refresh         | the access token  | its client secret in another case                 |
      | offline web application | from the code exchange | the refresh token | its client secret in another case                 |
      | installed application   | from a refresh         | the access token  | a wrong client secret                             |
      | installed application   | from the code exchange | the refresh token | a wrong client secret                             |
      | installed application   | from a refresh         | the refresh token | a wrong client secret                             |
      | installed application   | from a refresh         | the access token  | an empty client secret                            |
      | installed application   | from the code exchange | the refresh token | an empty client secret                            |
      | installed application   | from a refresh         | the refresh token | an empty client secret                            |
      | installed application   | from the code exchange | the access token  | its client secret with the last character changed |
      | installed application   | from the code exchange | the refresh token | its client secret with the last character changed |
      | installed application   | from a refresh         | the refresh token | its client secret with the last character changed |
      | installed application   | from the code exchange | the access token  | its client secret without the last character      |
      | installed application   | from a refresh         | the access token  | its client secret without the last character      |
      | installed application   | from a refresh         | the refresh token | its client secret without the last character      |
      | installed application   | from the code exchange | the access token  | its client secret with a character added          |
      | installed application   | from a refresh         | the access token  | its client secret with a character added          |
      | installed application   | from the code exchange | the refresh token | its client secret with a character added          |
      | installed application   | from a refresh         | the access token  | the first half of its client secret               |
      | installed application   | from the code exchange | the refresh token | the first half of its client secret               |
      | installed application   | from a refresh         | the refresh token | the first half of its client secret               |
      | installed application   | from a refresh         | the access token  | its client secret in another case                 |
      | installed application   | from the code exchange | the refresh token | its client secret in another case                 |
      | installed application   | from a refresh         | the refresh token | its client secret in another case                 |

  @REVOKE-ERR-INVALID-CLIENT @rfc
  Scenario Outline: A revocation of <token_kind> of the <client> with <near_miss> is answered invalid_client
    Given the user has just granted the <client> access to "profile rating"
    When the application revokes <token_kind> with <near_miss>
    Then the revocation endpoint answers with the error "invalid_client" as RFC 7009 describes

    Examples:
      | client                  | token_kind        | near_miss                                         |
      | online web application  | the access token  | a wrong client secret                             |
      | offline web application | the refresh token | its client secret with the last character changed |
      | installed application   | the access token  | its client secret without the last character      |
      | offline web application | the access token  | its client secret with a character added          |
      | installed application   | the refresh token | the first half of its client secret               |
      | online web application  | the access token  | its client secret in another case                 |
      | online web application  | the access token  | its client secret with the last character changed |
      | online web application  | the access token  | the first half of its client secret               |
      | offline web application | the refresh token | a wrong client secret                             |
      | offline web application | the refresh token | its client secret without the last character      |
      | offline web application | the refresh token | its client secret in another case                 |
      | installed application   | the refresh token | its client secret with a character added          |
      | online web application  | the access token  | its client secret without the last character      |
      | online web application  | the access token  | its client secret with a character added          |
      | offline web application | the access token  | the first half of its client secret               |
      | installed application   | the access token  | a wrong client secret                             |
      | installed application   | the access token  | its client secret with the last character changed |
      | installed application   | the access token  | its client secret in another case                 |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | token_kind        | near_miss                                         |
      | offline web application | the access token  | a wrong client secret                             |
      | offline web application | the access token  | its client secret with the last character changed |
      | offline web application | the access token  | its client secret without the last character      |
      | offline web application | the refresh token | its client secret with a character added          |
      | offline web application | the refresh token | the first half of its client secret               |
      | offline web application | the access token  | its client secret in another case                 |
      | installed application   | the refresh token | a wrong client secret                             |
      | installed application   | the refresh token | its client secret with the last character changed |
      | installed application   | the refresh token | its client secret without the last character      |
      | installed application   | the access token  | its client secret with a character added          |
      | installed application   | the access token  | the first half of its client secret               |
      | installed application   | the refresh token | its client secret in another case                 |

  @REVOKE-OTHER-CLIENT @rfc
  Scenario Outline: An application cannot revoke <token_kind> of the <client>
    Given the user has just granted the <client> access to "profile rating"
    When another web application revokes <token_kind> with its own credentials
    Then <token_kind> still works

    Examples:
      | client                  | token_kind        |
      | online web application  | the access token  |
      | offline web application | the access token  |
      | offline web application | the refresh token |
      | installed application   | the access token  |
      | installed application   | the refresh token |

  @REVOKE-NO-QUERY-PARAMS @rfc
  Scenario Outline: The revocation endpoint refuses <token_kind> of the <client> with its parameters in the URL of a <method> request
    Given the user has just granted the <client> access to "profile rating"
    When the application revokes <token_kind> with all parameters in the URL query string of a <method> request
    Then the revocation is not answered with success
    And <token_kind> still works

    Examples:
      | client                  | token_kind        | method |
      | online web application  | the access token  | GET    |
      | offline web application | the access token  | GET    |
      | offline web application | the refresh token | GET    |
      | installed application   | the access token  | GET    |
      | installed application   | the refresh token | GET    |
      | online web application  | the access token  | POST   |
      | offline web application | the access token  | POST   |
      | offline web application | the refresh token | POST   |
      | installed application   | the access token  | POST   |
      | installed application   | the refresh token | POST   |

  @REVOKE-MANUAL @spec @lasting
  Scenario Outline: The user revokes the <client> on the website
    Given the user has just granted the <client> access to "profile collection"
    When the user revokes the application's access on the website
    Then the refresh token no longer works

    Examples:
      | client                  |
      | offline web application |
      | installed application   |

  @REVOKE-MANUAL @spec @lasting
  Scenario: The user revokes the application on the website after its access token was revoked
    Given the user has just granted the installed application access to "profile collection"
    And the application has revoked the access token
    When the user revokes the application's access on the website
    Then the refresh token no longer works

  @INFO-REVOKE-HEADERS @info
  Scenario: The headers of the empty revocation response are recorded
    Given a web application registered with the service
    When the application revokes a token the service never issued
    Then the headers of the revocation response are recorded
