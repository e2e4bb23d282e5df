Feature: User information
  With an access token for the profile scope the application reads the user's information. The
  token goes preferably in the Authorization header, or in the body of a form POST, or (for
  testing only) in the query string.

  @USERINFO-HEADER @SCOPE-PROFILE-GRANTS-PROFILE @spec
  Scenario: The token in the Authorization header gives the user's profile
    Given the user has granted the web application offline access to "profile email"
    When the application asks for the user's profile with the token in the Authorization header
    Then the service returns the user's profile

  @USERINFO-POST-BODY @VERSION-USERINFO-POST @spec
  Scenario: The token in the body of a form POST gives the user's profile
    Given the user has granted the web application offline access to "profile email"
    When the application asks for the user's profile with the token in a form body
    Then the service returns the user's profile

  @USERINFO-QUERY @spec
  Scenario: The token in the query string gives the user's profile
    Given the user has granted the web application offline access to "profile email"
    When the application asks for the user's profile with the token in the query string
    Then the service returns the user's profile

  @AUTH-BEARER-ONLY @spec
  Scenario Outline: The token under the "<scheme>" scheme is not accepted
    Given the user has granted the web application offline access to "profile email"
    When the application asks for the user's profile with the token under the "<scheme>" scheme
    Then the service does not return the user's profile

    Examples:
      | scheme |
      | MAC    |
      | Basic  |
      | Token  |

  @SCOPE-PROFILE-WITHHELD @spec
  Scenario Outline: Without the profile scope the user's profile is not shown, with the token <way>
    Given the user has granted the web application access to "tag"
    When the application asks for the user's profile with the token <way>
    Then the service does not return the user's profile

    Examples:
      | way                 |
      | in a form body      |
      | in the query string |

  @SCOPE-EMAIL-WITHHELD @spec
  Scenario Outline: Without the email scope the user's email is not shown, with the token <way>
    Given the user has granted the web application access to "profile"
    When the application asks for the user's profile with the token <way>
    Then the user's email is not revealed

    Examples:
      | way                         |
      | in the Authorization header |
      | in a form body              |
      | in the query string         |

  @USERINFO-ERR-NO-TOKEN @rfc
  Scenario: A request without a token is challenged
    Given a web application registered with the service
    When the application asks for the user's profile without a token
    Then the service answers 401 with a Bearer challenge without an error code

  @USERINFO-ERR-INVALID-TOKEN @rfc
  Scenario: An unknown token is answered invalid_token
    Given a web application registered with the service
    When the application asks for the user's profile with a token the service never issued
    Then the service answers 401 with a Bearer challenge with the error "invalid_token"

  @USERINFO-ERR-INVALID-TOKEN @rfc
  Scenario Outline: A token that only resembles an issued one is answered invalid_token: <change>
    Given the user has granted the web application offline access to "profile email"
    When the application asks for the user's profile with its access token <change>
    Then the service answers 401 with a Bearer challenge with the error "invalid_token"

    Examples:
      | change                          |
      | with its last character changed |
      | without its last character      |
      | with a character added          |

  @USERINFO-ERR-INSUFFICIENT-SCOPE @rfc
  Scenario Outline: A token without the profile scope is answered insufficient_scope, the token <way>
    Given the user has granted the web application access to "tag"
    When the application asks for the user's profile with the token <way>
    Then the service answers 403 with a Bearer challenge with the error "insufficient_scope"

    Examples:
      | way                         |
      | in the Authorization header |
      | in a form body              |
      | in the query string         |

  @USERINFO-ERR-INVALID-TOKEN @rfc
  Scenario: A revoked token is answered invalid_token
    Given the user has just granted the web application offline access to "profile email"
    And the application has revoked the access token
    When the application asks for the user's profile with the token in the Authorization header
    Then the service answers 401 with a Bearer challenge with the error "invalid_token"

  @USERINFO-ERR-MULTIPLE-METHODS @rfc
  Scenario: A token sent two ways at once is refused
    Given the user has granted the web application offline access to "profile email"
    When the application asks for the user's profile with the token in the header and the query string
    Then the service answers 400 with the error "invalid_request"

  @INFO-USERINFO-FIELDS @info
  Scenario: The fields of the user information are recorded
    Given the user has granted the web application offline access to "profile email"
    When the application asks for the user's profile with the token in the Authorization header
    Then the fields of the user information are recorded
