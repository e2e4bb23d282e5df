"""The endpoints clients call (spec 4.2-4.5: token, revocation, user information), free of any
web framework, in oauthlib's endpoint shape: each one a function from a `ClientRequest` (plain
values: method, query, content type, body, Authorization, peer) to an `answers.Answer` (status,
headers, body). Nothing here needs HTTP; `endpoints.py` serves them with Starlette.

    token        dispatch by grant type (spec 4.2, 4.3) to grants/
    revocation   RFC 7009 (spec 4.4)
    userinfo     the bearer token's three ways and errors (spec 4.5, RFC 6750)
    parameters   the parameter rules the token and revocation endpoints share
    client_auth  client credentials in the body or with Basic (spec 5.1)
    replies      every answer of the three, each written once
    request      the plain request value

Errors are raised inside (`errors.OAuthError`, `errors.BearerError`) and answered by each
endpoint through `replies`: an endpoint always returns an answer.
"""

from .request import ClientRequest
from .revocation import revocation_endpoint
from .token import token_endpoint
from .userinfo import userinfo_endpoint

__all__ = ["ClientRequest", "revocation_endpoint", "token_endpoint", "userinfo_endpoint"]
