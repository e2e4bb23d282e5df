Feature: Proof Key for Code Exchange
  An application may bind its authorization request to a secret verifier (RFC 7636): it sends
  a challenge derived from the verifier with the request, and the verifier itself when it
  exchanges the code. A code whose verifier does not agree is worthless to whoever stole it.

  @PKCE-OPTIONAL @spec
  Scenario Outline: A request of <application> without a challenge completes the flow
    Given <application> registered with the service
    When the application asks for the "profile" scope
    And the request carries no code challenge
    And the user approves the request
    Then the application receives an authorization code
    When the application exchanges the code
    Then the application receives an access token

    Examples:
      | application              |
      | a web application        |
      | an installed application |

  @PKCE-S256 @spec
  Scenario Outline: An S256 challenge is met by its verifier (<application>)
    Given <application> registered with the service
    When the application asks for the "profile" scope
    And the request carries an S256 code challenge
    And the user approves the request
    Then the application receives an authorization code
    When the application exchanges the code with the matching code verifier
    Then the application receives an access token

    Examples:
      | application              |
      | a web application        |
      | an installed application |

  @PKCE-PLAIN @spec
  Scenario Outline: A plain challenge is met by its verifier (<application>)
    Given <application> registered with the service
    When the application asks for the "profile" scope
    And the request carries a plain code challenge
    And the user approves the request
    Then the application receives an authorization code
    When the application exchanges the code with the matching code verifier
    Then the application receives an access token

    Examples:
      | application              |
      | a web application        |
      | an installed application |

  @PKCE-DEFAULT-PLAIN @spec
  Scenario Outline: A challenge without a method is a plain challenge (<application>)
    Given <application> registered with the service
    When the application asks for the "profile" scope
    And the request carries a code challenge without a method
    And the user approves the request
    Then the application receives an authorization code
    When the application exchanges the code with the challenge as its code verifier
    Then the application receives an access token

    Examples:
      | application              |
      | a web application        |
      | an installed application |

  @PKCE-VERIFIER-MISMATCH @VERSION-PKCE @spec
  Scenario Outline: A verifier that does not agree with the <method> challenge is rejected: <verifier> (<application>)
    Given <application> registered with the service
    When the application asks for the "profile" scope
    And the request carries a <method> code challenge
    And the user approves the request
    And the application exchanges the code with <verifier>
    Then the exchange is refused

    Examples:
      | application              | method | verifier                           |
      | a web application        | S256   | a different code verifier          |
      | a web application        | S256   | the challenge as its code verifier |
      | a web application        | plain  | a different code verifier          |
      | an installed application | S256   | a different code verifier          |
      | an installed application | plain  | a different code verifier          |

  @PKCE-VERIFIER-MISSING @rfc
  Scenario: A code issued for a challenge is not exchanged without the verifier
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request carries an S256 code challenge
    And the user approves the request
    And the application exchanges the code without a code verifier
    Then the exchange is refused

  @PKCE-DOWNGRADE @rfc
  Scenario: A verifier for a code issued without a challenge is rejected
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request carries no code challenge
    And the user approves the request
    And the application exchanges the code with a code verifier of its own
    Then the exchange is refused

  @PKCE-BAD-METHOD @rfc
  Scenario Outline: The challenge method "<method>" is refused
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request carries a code challenge with the method "<method>"
    And the user opens the authorization page
    Then the request is refused as "invalid_request"

    Examples:
      | method |
      | S512   |
      | s256   |
      | none   |

  @PKCE-CHALLENGE-FORMAT @rfc
  Scenario Outline: A malformed <method> challenge is refused: <shape>
    Given a web application registered with the service
    When the application asks for the "profile" scope
    And the request carries a <method> code challenge that is <shape>
    And the user opens the authorization page
    Then the request is refused as "invalid_request"

    Examples:
      | method | shape                          |
      | S256   | 42 characters long             |
      | S256   | 44 characters long             |
      | plain  | 42 characters long             |
      | plain  | 129 characters long            |
      | plain  | made of forbidden characters   |
