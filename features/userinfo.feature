Feature: User information
  With an access token for the profile scope the application reads the user's information. The
  token goes preferably in the Authorization header, or in the body of a form POST, or (for
  testing only) in the query string. Every way is tried with tokens of every kind of
  application, from the code exchange and from a refresh.

  @USERINFO-HEADER @spec
  Scenario Outline: The token of the <client> <origin> in the Authorization header gives the user's profile
    Given the user has granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token in the Authorization header
    Then the service returns the user's profile

    Examples:
      | client                  | origin                 |
      | online web application  | from the code exchange |
      | offline web application | from the code exchange |
      | installed application   | from the code exchange |

  @USERINFO-HEADER @spec
  Scenario Outline: The token of the <client> <origin> in the Authorization header gives the user's profile, on a grant of its own
    Given the user has just granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token in the Authorization header
    Then the service returns the user's profile

    Examples:
      | client                  | origin         |
      | offline web application | from a refresh |
      | installed application   | from a refresh |

  @USERINFO-POST-BODY @VERSION-USERINFO-POST @spec
  Scenario Outline: The token of the <client> <origin> in the body of a form POST gives the user's profile
    Given the user has granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token in a form body
    Then the service returns the user's profile

    Examples:
      | client                  | origin                 |
      | online web application  | from the code exchange |
      | offline web application | from the code exchange |
      | installed application   | from the code exchange |

  @USERINFO-POST-BODY @VERSION-USERINFO-POST @spec
  Scenario Outline: The token of the <client> <origin> in the body of a form POST gives the user's profile, on a grant of its own
    Given the user has just granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token in a form body
    Then the service returns the user's profile

    Examples:
      | client                  | origin         |
      | offline web application | from a refresh |
      | installed application   | from a refresh |

  @USERINFO-QUERY @spec
  Scenario Outline: The token of the <client> <origin> in the query string gives the user's profile
    Given the user has granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token in the query string
    Then the service returns the user's profile

    Examples:
      | client                  | origin                 |
      | online web application  | from the code exchange |
      | offline web application | from the code exchange |
      | installed application   | from the code exchange |

  @USERINFO-QUERY @spec
  Scenario Outline: The token of the <client> <origin> in the query string gives the user's profile, on a grant of its own
    Given the user has just granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token in the query string
    Then the service returns the user's profile

    Examples:
      | client                  | origin         |
      | offline web application | from a refresh |
      | installed application   | from a refresh |

  @AUTH-BEARER-ONLY @spec
  Scenario Outline: The token of the <client> <origin> under the "<scheme>" scheme is not accepted
    Given the user has granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token under the "<scheme>" scheme
    Then the service does not return the user's profile

    Examples:
      | client                  | origin                 | scheme         |
      | online web application  | from the code exchange | OAuth          |
      | installed application   | from the code exchange | MAC            |
      | offline web application | from the code exchange | Digest         |
      | online web application  | from the code exchange | no scheme word |
      | online web application  | from the code exchange | Token          |
      | online web application  | from the code exchange | Basic          |
      | online web application  | from the code exchange | MAC            |
      | online web application  | from the code exchange | Digest         |
      | offline web application | from the code exchange | Basic          |
      | installed application   | from the code exchange | OAuth          |
      | installed application   | from the code exchange | Token          |
      | installed application   | from the code exchange | no scheme word |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin                 | scheme         |
      | offline web application | from the code exchange | OAuth          |
      | offline web application | from the code exchange | Token          |
      | offline web application | from the code exchange | MAC            |
      | offline web application | from the code exchange | no scheme word |
      | installed application   | from the code exchange | Digest         |
      | installed application   | from the code exchange | Basic          |

  @AUTH-BEARER-ONLY @spec
  Scenario Outline: The token of the <client> <origin> under the "<scheme>" scheme is not accepted, on a grant of its own
    Given the user has just granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token under the "<scheme>" scheme
    Then the service does not return the user's profile

    Examples:
      | client                  | origin         | scheme         |
      | offline web application | from a refresh | Token          |
      | installed application   | from a refresh | Basic          |
      | offline web application | from a refresh | OAuth          |
      | offline web application | from a refresh | MAC            |
      | offline web application | from a refresh | no scheme word |
      | installed application   | from a refresh | Digest         |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin         | scheme         |
      | offline web application | from a refresh | Digest         |
      | offline web application | from a refresh | Basic          |
      | installed application   | from a refresh | OAuth          |
      | installed application   | from a refresh | Token          |
      | installed application   | from a refresh | MAC            |
      | installed application   | from a refresh | no scheme word |

  @SCOPE-PROFILE-WITHHELD @spec
  Scenario Outline: Without the profile scope the user's profile is not shown: a token of the <client> <origin>, passed <delivery>
    Given the user has granted the <client> access to "tag"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token <delivery>
    Then the service does not return the user's profile

    Examples:
      | client                  | origin                 | delivery                    |
      | online web application  | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in a form body              |
      | installed application   | from the code exchange | in the query string         |
      | online web application  | from the code exchange | in a form body              |
      | online web application  | from the code exchange | in the query string         |
      | installed application   | from the code exchange | in the Authorization header |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin                 | delivery                    |
      | offline web application | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in the query string         |
      | installed application   | from the code exchange | in a form body              |

  @SCOPE-PROFILE-WITHHELD @spec
  Scenario Outline: Without the profile scope the user's profile is not shown: a token of the <client> <origin>, passed <delivery>, on a grant of its own
    Given the user has just granted the <client> access to "tag"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token <delivery>
    Then the service does not return the user's profile

    Examples:
      | client                  | origin         | delivery                    |
      | offline web application | from a refresh | in the Authorization header |
      | installed application   | from a refresh | in a form body              |
      | offline web application | from a refresh | in the query string         |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin         | delivery                    |
      | offline web application | from a refresh | in a form body              |
      | installed application   | from a refresh | in the Authorization header |
      | installed application   | from a refresh | in the query string         |

  @SCOPE-EMAIL-WITHHELD @spec
  Scenario Outline: Without the email scope the user's email is not shown: a token of the <client> <origin>, passed <delivery>
    Given the user has granted the <client> access to "profile"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token <delivery>
    Then the user's email is not revealed

    Examples:
      | client                  | origin                 | delivery                    |
      | online web application  | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in a form body              |
      | installed application   | from the code exchange | in the query string         |
      | online web application  | from the code exchange | in a form body              |
      | online web application  | from the code exchange | in the query string         |
      | installed application   | from the code exchange | in the Authorization header |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin                 | delivery                    |
      | offline web application | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in the query string         |
      | installed application   | from the code exchange | in a form body              |

  @SCOPE-EMAIL-WITHHELD @spec
  Scenario Outline: Without the email scope the user's email is not shown: a token of the <client> <origin>, passed <delivery>, on a grant of its own
    Given the user has just granted the <client> access to "profile"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token <delivery>
    Then the user's email is not revealed

    Examples:
      | client                  | origin         | delivery                    |
      | offline web application | from a refresh | in the Authorization header |
      | installed application   | from a refresh | in a form body              |
      | offline web application | from a refresh | in the query string         |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin         | delivery                    |
      | offline web application | from a refresh | in a form body              |
      | installed application   | from a refresh | in the Authorization header |
      | installed application   | from a refresh | in the query string         |

  @SCOPE-PROFILE-GRANTS-PROFILE @spec
  Scenario Outline: The profile scope shows the user's profile: a token of the <client> <origin>, passed <delivery>
    Given the user has granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token <delivery>
    Then the user's profile is included

    Examples:
      | client                  | origin                 | delivery                    |
      | online web application  | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in a form body              |
      | installed application   | from the code exchange | in the query string         |
      | online web application  | from the code exchange | in a form body              |
      | online web application  | from the code exchange | in the query string         |
      | installed application   | from the code exchange | in the Authorization header |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin                 | delivery                    |
      | offline web application | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in the query string         |
      | installed application   | from the code exchange | in a form body              |

  @SCOPE-PROFILE-GRANTS-PROFILE @spec
  Scenario Outline: The profile scope shows the user's profile: a token of the <client> <origin>, passed <delivery>, on a grant of its own
    Given the user has just granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token <delivery>
    Then the user's profile is included

    Examples:
      | client                  | origin         | delivery                    |
      | offline web application | from a refresh | in the Authorization header |
      | installed application   | from a refresh | in a form body              |
      | offline web application | from a refresh | in the query string         |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin         | delivery                    |
      | offline web application | from a refresh | in a form body              |
      | installed application   | from a refresh | in the Authorization header |
      | installed application   | from a refresh | in the query string         |

  @SCOPE-EMAIL-GRANTS-EMAIL @spec
  Scenario Outline: The email scope shows the user's email: a token of the <client> <origin>, passed <delivery>
    Given the user has granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token <delivery>
    Then the user's email is included

    Examples:
      | client                  | origin                 | delivery                    |
      | online web application  | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in a form body              |
      | installed application   | from the code exchange | in the query string         |
      | online web application  | from the code exchange | in a form body              |
      | online web application  | from the code exchange | in the query string         |
      | installed application   | from the code exchange | in the Authorization header |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin                 | delivery                    |
      | offline web application | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in the query string         |
      | installed application   | from the code exchange | in a form body              |

  @SCOPE-EMAIL-GRANTS-EMAIL @spec
  Scenario Outline: The email scope shows the user's email: a token of the <client> <origin>, passed <delivery>, on a grant of its own
    Given the user has just granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token <delivery>
    Then the user's email is included

    Examples:
      | client                  | origin         | delivery                    |
      | offline web application | from a refresh | in the Authorization header |
      | installed application   | from a refresh | in a form body              |
      | offline web application | from a refresh | in the query string         |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin         | delivery                    |
      | offline web application | from a refresh | in a form body              |
      | installed application   | from a refresh | in the Authorization header |
      | installed application   | from a refresh | in the query string         |

  @USERINFO-ERR-INSUFFICIENT-SCOPE @rfc
  Scenario Outline: A token of the <client> <origin> without the profile scope, passed <delivery>, is answered insufficient_scope
    Given the user has granted the <client> access to "tag"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token <delivery>
    Then the service answers 403 with a Bearer challenge with the error "insufficient_scope"

    Examples:
      | client                  | origin                 | delivery                    |
      | online web application  | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in a form body              |
      | installed application   | from the code exchange | in the query string         |
      | online web application  | from the code exchange | in a form body              |
      | online web application  | from the code exchange | in the query string         |
      | installed application   | from the code exchange | in the Authorization header |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin                 | delivery                    |
      | offline web application | from the code exchange | in the Authorization header |
      | offline web application | from the code exchange | in the query string         |
      | installed application   | from the code exchange | in a form body              |

  @USERINFO-ERR-INSUFFICIENT-SCOPE @rfc
  Scenario Outline: A token of the <client> <origin> without the profile scope, passed <delivery>, is answered insufficient_scope, on a grant of its own
    Given the user has just granted the <client> access to "tag"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token <delivery>
    Then the service answers 403 with a Bearer challenge with the error "insufficient_scope"

    Examples:
      | client                  | origin         | delivery                    |
      | offline web application | from a refresh | in the Authorization header |
      | installed application   | from a refresh | in a form body              |
      | offline web application | from a refresh | in the query string         |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin         | delivery                    |
      | offline web application | from a refresh | in a form body              |
      | installed application   | from a refresh | in the Authorization header |
      | installed application   | from a refresh | in the query string         |

  @USERINFO-ERR-MULTIPLE-METHODS @rfc
  Scenario Outline: A token of the <client> <origin> sent <two_ways> at once is refused
    Given the user has granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token <two_ways>
    Then the service answers 400 with the error "invalid_request"

    Examples:
      | client                  | origin                 | two_ways                            |
      | online web application  | from the code exchange | in the header and the query string  |
      | offline web application | from the code exchange | in the header and a form body       |
      | installed application   | from the code exchange | in a form body and the query string |
      | online web application  | from the code exchange | in the header and a form body       |
      | online web application  | from the code exchange | in a form body and the query string |
      | installed application   | from the code exchange | in the header and the query string  |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin                 | two_ways                            |
      | offline web application | from the code exchange | in the header and the query string  |
      | offline web application | from the code exchange | in a form body and the query string |
      | installed application   | from the code exchange | in the header and a form body       |

  @USERINFO-ERR-MULTIPLE-METHODS @rfc
  Scenario Outline: A token of the <client> <origin> sent <two_ways> at once is refused, on a grant of its own
    Given the user has just granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with the token <two_ways>
    Then the service answers 400 with the error "invalid_request"

    Examples:
      | client                  | origin         | two_ways                            |
      | offline web application | from a refresh | in the header and the query string  |
      | installed application   | from a refresh | in the header and a form body       |
      | offline web application | from a refresh | in a form body and the query string |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin         | two_ways                            |
      | offline web application | from a refresh | in the header and a form body       |
      | installed application   | from a refresh | in the header and the query string  |
      | installed application   | from a refresh | in a form body and the query string |

  @USERINFO-ERR-NO-TOKEN @rfc
  Scenario: A request without a token is challenged
    Given a web application registered with the service
    When the application asks for the user's profile without a token
    Then the service answers 401 with a Bearer challenge without an error code

  @USERINFO-ERR-INVALID-TOKEN @rfc
  Scenario Outline: A token that the service never issued, passed <delivery>, is answered invalid_token
    Given a web application registered with the service
    When the application asks for the user's profile with a token that the service never issued, passed <delivery>
    Then the service answers 401 with a Bearer challenge with the error "invalid_token"

    Examples:
      | delivery                    |
      | in the Authorization header |
      | in a form body              |
      | in the query string         |

  @USERINFO-ERR-INVALID-TOKEN @rfc
  Scenario Outline: An access token of the <client> <origin> <invalidity>, passed <delivery>, is answered invalid_token
    Given the user has granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with its access token <invalidity>, passed <delivery>
    Then the service answers 401 with a Bearer challenge with the error "invalid_token"

    Examples:
      | client                  | origin                 | delivery                    | invalidity                      |
      | online web application  | from the code exchange | in the Authorization header | with its last character changed |
      | offline web application | from the code exchange | in a form body              | without its last character      |
      | installed application   | from the code exchange | in the query string         | with a character added          |
      | online web application  | from the code exchange | in a form body              | with a character added          |
      | online web application  | from the code exchange | in the query string         | without its last character      |
      | offline web application | from the code exchange | in the query string         | with its last character changed |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin                 | delivery                    | invalidity                      |
      | online web application  | from the code exchange | in the Authorization header | without its last character      |
      | online web application  | from the code exchange | in the Authorization header | with a character added          |
      | online web application  | from the code exchange | in a form body              | with its last character changed |
      | online web application  | from the code exchange | in a form body              | without its last character      |
      | online web application  | from the code exchange | in the query string         | with its last character changed |
      | online web application  | from the code exchange | in the query string         | with a character added          |
      | offline web application | from the code exchange | in the Authorization header | with its last character changed |
      | offline web application | from the code exchange | in the Authorization header | without its last character      |
      | offline web application | from the code exchange | in the Authorization header | with a character added          |
      | offline web application | from the code exchange | in a form body              | with its last character changed |
      | offline web application | from the code exchange | in a form body              | with a character added          |
      | offline web application | from the code exchange | in the query string         | without its last character      |
      | offline web application | from the code exchange | in the query string         | with a character added          |
      | installed application   | from the code exchange | in the Authorization header | with its last character changed |
      | installed application   | from the code exchange | in the Authorization header | without its last character      |
      | installed application   | from the code exchange | in the Authorization header | with a character added          |
      | installed application   | from the code exchange | in a form body              | with its last character changed |
      | installed application   | from the code exchange | in a form body              | without its last character      |
      | installed application   | from the code exchange | in a form body              | with a character added          |
      | installed application   | from the code exchange | in the query string         | with its last character changed |
      | installed application   | from the code exchange | in the query string         | without its last character      |

  @USERINFO-ERR-INVALID-TOKEN @rfc
  Scenario Outline: An access token of the <client> <origin> <invalidity>, passed <delivery>, is answered invalid_token, on a grant of its own
    Given the user has just granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with its access token <invalidity>, passed <delivery>
    Then the service answers 401 with a Bearer challenge with the error "invalid_token"

    Examples:
      | client                  | origin         | delivery                    | invalidity                      |
      | offline web application | from a refresh | in the Authorization header | with a character added          |
      | installed application   | from a refresh | in a form body              | with its last character changed |
      | installed application   | from a refresh | in the Authorization header | without its last character      |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin         | delivery                    | invalidity                      |
      | offline web application | from a refresh | in the Authorization header | with its last character changed |
      | offline web application | from a refresh | in the Authorization header | without its last character      |
      | offline web application | from a refresh | in a form body              | with its last character changed |
      | offline web application | from a refresh | in a form body              | without its last character      |
      | offline web application | from a refresh | in a form body              | with a character added          |
      | offline web application | from a refresh | in the query string         | with its last character changed |
      | offline web application | from a refresh | in the query string         | without its last character      |
      | offline web application | from a refresh | in the query string         | with a character added          |
      | installed application   | from a refresh | in the Authorization header | with its last character changed |
      | installed application   | from a refresh | in the Authorization header | with a character added          |
      | installed application   | from a refresh | in a form body              | without its last character      |
      | installed application   | from a refresh | in a form body              | with a character added          |
      | installed application   | from a refresh | in the query string         | with its last character changed |
      | installed application   | from a refresh | in the query string         | without its last character      |
      | installed application   | from a refresh | in the query string         | with a character added          |

  @USERINFO-ERR-INVALID-TOKEN @rfc
  Scenario Outline: A revoked access token of the <client> <origin>, passed <delivery>, is answered invalid_token
    Given the user has just granted the <client> access to "profile email"
    And the application holds an access token <origin>
    When the application asks for the user's profile with its access token <invalidity>, passed <delivery>
    Then the service answers 401 with a Bearer challenge with the error "invalid_token"

    Examples:
      | client                  | origin                 | delivery                    | invalidity       |
      | offline web application | from a refresh         | in the query string         | that was revoked |
      | online web application  | from the code exchange | in a form body              | that was revoked |
      | installed application   | from the code exchange | in the Authorization header | that was revoked |

    @product
    Examples: the rest of the full product (--combinations product)
      | client                  | origin                 | delivery                    | invalidity       |
      | online web application  | from the code exchange | in the Authorization header | that was revoked |
      | online web application  | from the code exchange | in the query string         | that was revoked |
      | offline web application | from the code exchange | in the Authorization header | that was revoked |
      | offline web application | from the code exchange | in a form body              | that was revoked |
      | offline web application | from the code exchange | in the query string         | that was revoked |
      | offline web application | from a refresh         | in the Authorization header | that was revoked |
      | offline web application | from a refresh         | in a form body              | that was revoked |
      | installed application   | from the code exchange | in a form body              | that was revoked |
      | installed application   | from the code exchange | in the query string         | that was revoked |
      | installed application   | from a refresh         | in the Authorization header | that was revoked |
      | installed application   | from a refresh         | in a form body              | that was revoked |
      | installed application   | from a refresh         | in the query string         | that was revoked |

  @INFO-USERINFO-FIELDS @info
  Scenario: The fields of the user information are recorded
    Given the user has granted the offline web application access to "profile email"
    When the application asks for the user's profile with the token in the Authorization header
    Then the fields of the user information are recorded
