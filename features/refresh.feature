Feature: Refresh
  An installed application, or a web application with offline access, renews its access token
  with its refresh token, without the user. The refresh token stays the same and stays valid.
  Every scenario here changes its grant, so each starts from a grant of its own.

  @REFRESH-NEW-ACCESS-TOKEN @spec
  Scenario Outline: A refresh of the <client> yields a new access token the service accepts
    Given the user has just granted the <client> access to "profile email"
    When the application refreshes the access token
    Then the application receives a new access token
    And the new access token is accepted by the service

    Examples:
      | client                  |
      | offline web application |
      | installed application   |

  @REFRESH-SAME-TOKEN @spec
  Scenario Outline: The refresh response carries the same refresh token (<client>)
    Given the user has just granted the <client> access to "profile email"
    When the application refreshes the access token
    Then the response carries the same refresh token

    Examples:
      | client                  |
      | offline web application |
      | installed application   |

  @REFRESH-TOKEN-STAYS-VALID @spec
  Scenario Outline: A refresh token stays valid after use (<client>)
    Given the user has just granted the <client> access to "profile email"
    And the application has refreshed the access token
    When the application refreshes the access token again with the refresh token it sent first
    Then the application receives a new access token

    Examples:
      | client                  |
      | offline web application |
      | installed application   |

  @REFRESH-REQUIRED-PARAMS @spec
  Scenario Outline: A refresh of the <client> without <missing> is refused
    Given the user has just granted the <client> access to "profile email"
    When the application refreshes the access token without <missing>
    Then the refresh is refused

    Examples:
      | client                  | missing                 |
      | offline web application | the grant_type field    |
      | offline web application | the refresh_token field |
      | offline web application | the client_id field     |
      | offline web application | the client_secret field |
      | installed application   | the grant_type field    |
      | installed application   | the refresh_token field |
      | installed application   | the client_id field     |
      | installed application   | the client_secret field |

  @REFRESH-CROSS-CLIENT @rfc
  Scenario Outline: A refresh token issued to the <client> cannot be used by another application
    Given the user has just granted the <client> access to "profile email"
    When another web application refreshes the access token with its own credentials
    Then the refresh is refused

    Examples:
      | client                  |
      | offline web application |
      | installed application   |
