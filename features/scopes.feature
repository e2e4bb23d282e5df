Feature: Scopes
  Scopes name what the user lets the application do. The profile scope shows the user's public
  profile; the email scope shows the user's email. Identifiers are given exactly: a deployment
  that names them otherwise (the profile's [scopes]) is checked with its own names everywhere,
  and fails only the rule that requires the spec's names.

  @SCOPE-IDENTIFIERS @spec
  Scenario Outline: All seven scope identifiers are accepted together from the <client>
    Given an <client> registered with the service
    When the application asks for the "profile email tag rating collection submit_isrc submit_barcode" scopes
    And the user approves the request
    Then the application receives an authorization code
    And the deployment names every scope as the spec does

    Examples:
      | client                  |
      | online web application  |
      | offline web application |
      | installed application   |

  @SCOPE-CASE-SENSITIVE @rfc
  Scenario Outline: The scope "<scope>" in another case is refused for the <client>
    Given an <client> registered with the service
    When the application asks for the "<scope>" scope
    And the user opens the authorization page
    Then the request is refused as "invalid_scope"

    Examples:
      | client                  | scope   |
      | online web application  | Profile |
      | online web application  | EMAIL   |
      | offline web application | Profile |
      | offline web application | EMAIL   |
      | installed application   | Profile |
      | installed application   | EMAIL   |
