Feature: Proof Key for Code Exchange
  An application may bind its authorization request to a secret verifier (RFC 7636): it sends
  a challenge derived from the verifier with the request, and the verifier itself when it
  exchanges the code. A code whose verifier does not agree is worthless to whoever stole it.

  @PKCE-OPTIONAL @spec
  Scenario Outline: A request of the <client> without a challenge completes the flow
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries no code challenge
    And the user approves the request
    Then the application receives an authorization code
    When the application exchanges the code
    Then the application receives an access token

    Examples:
      | client                  |
      | online web application  |
      | offline web application |
      | installed application   |

  @PKCE-S256 @spec
  Scenario Outline: An S256 challenge of the <client> is met by its verifier
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries an S256 code challenge
    And the user approves the request
    Then the application receives an authorization code
    When the application exchanges the code with the matching code verifier
    Then the application receives an access token

    Examples:
      | client                  |
      | online web application  |
      | offline web application |
      | installed application   |

  @PKCE-PLAIN @spec
  Scenario Outline: A plain challenge of the <client> is met by its verifier
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries a plain code challenge
    And the user approves the request
    Then the application receives an authorization code
    When the application exchanges the code with the matching code verifier
    Then the application receives an access token

    Examples:
      | client                  |
      | online web application  |
      | offline web application |
      | installed application   |

  @PKCE-DEFAULT-PLAIN @spec
  Scenario Outline: A challenge of the <client> without a method is a plain challenge
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries a code challenge without a method
    And the user approves the request
    Then the application receives an authorization code
    When the application exchanges the code with the challenge as its code verifier
    Then the application receives an access token

    Examples:
      | client                  |
      | online web application  |
      | offline web application |
      | installed application   |

  @PKCE-VERIFIER-MISMATCH @VERSION-PKCE @spec
  Scenario Outline: A verifier that does not agree with <pkce> of the <client> is rejected: <verifier>
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries <pkce>
    And the user approves the request
    And the application exchanges the code with <verifier>
    Then the code exchange is refused

    Examples:
      | client                  | pkce                   | verifier                           |
      | online web application  | an S256 code challenge | a different code verifier          |
      | online web application  | a plain code challenge | a different code verifier          |
      | offline web application | an S256 code challenge | a different code verifier          |
      | offline web application | a plain code challenge | a different code verifier          |
      | installed application   | an S256 code challenge | a different code verifier          |
      | installed application   | a plain code challenge | a different code verifier          |
      | online web application  | an S256 code challenge | the challenge as its code verifier |

  @PKCE-VERIFIER-MISSING @rfc
  Scenario Outline: A code of the <client> issued for <pkce> is not exchanged without the verifier
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries <pkce>
    And the user approves the request
    And the application exchanges the code without a code verifier
    Then the code exchange is refused

    Examples:
      | client                  | pkce                   |
      | online web application  | an S256 code challenge |
      | online web application  | a plain code challenge |
      | offline web application | an S256 code challenge |
      | offline web application | a plain code challenge |
      | installed application   | an S256 code challenge |
      | installed application   | a plain code challenge |

  @PKCE-DOWNGRADE @rfc
  Scenario Outline: A verifier for a code of the <client> issued without a challenge is rejected
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries no code challenge
    And the user approves the request
    And the application exchanges the code with a code verifier of its own
    Then the code exchange is refused

    Examples:
      | client                  |
      | online web application  |
      | offline web application |
      | installed application   |

  @PKCE-BAD-METHOD @rfc
  Scenario Outline: The challenge method "<method>" of the <client> is refused
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries a code challenge with the method "<method>"
    And the user opens the authorization page
    Then the request is refused as "invalid_request"

    Examples:
      | client                  | method |
      | online web application  | S512   |
      | online web application  | s256   |
      | online web application  | none   |
      | offline web application | S512   |
      | offline web application | s256   |
      | offline web application | none   |
      | installed application   | S512   |
      | installed application   | s256   |
      | installed application   | none   |

  @PKCE-CHALLENGE-FORMAT @rfc
  Scenario Outline: A malformed <method> challenge of the <client> is refused: <shape>
    Given an <client> registered with the service
    When the application asks for the "profile" scope
    And the request carries a <method> code challenge that is <shape>
    And the user opens the authorization page
    Then the request is refused as "invalid_request"

    Examples:
      | client                  | method | shape                        |
      | online web application  | S256   | 42 characters long           |
      | online web application  | S256   | 44 characters long           |
      | online web application  | plain  | 42 characters long           |
      | online web application  | plain  | 129 characters long          |
      | online web application  | plain  | made of forbidden characters |
      | offline web application | S256   | 44 characters long           |
      | offline web application | plain  | 129 characters long          |
      | installed application   | S256   | 42 characters long           |
      | installed application   | plain  | made of forbidden characters |
