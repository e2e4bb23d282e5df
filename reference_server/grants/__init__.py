"""Codes, tokens and grants: the effects table of spec section 3, a module per grant kind (as
oauthlib's `grant_types`).

A grant is one authorization of one application by one user for one scope set; a code
exchange creates it. It has a refresh token when spec 2.3 allows one (installed applications
and offline web applications) and any number of access tokens over time. Revoking the grant
ends all of them.

    authorization_code  codes issued on approval, exchanged once (spec 4.1-4.2)
    refresh_token       a new access token for a live grant (spec 4.3)
    revocation          RFC 7009 and the user's own withdrawal (spec 4.4, 3)
    bearer              the grant behind a presented access token (spec 4.5)
    consent             standing consents and the user's authorized applications
    base                what they share: lifetimes, the token answer, lookups by split key

Each rule is named (its id in features/rules.toml) at the line that enforces it, here as in
the rest of the server.
"""

from .authorization_code import CodeRequest, code_is_pending, exchange_code, issue_code
from .base import ACCESS_TOKEN_LIFETIME, CODE_LIFETIME, IssuedTokens
from .bearer import AccessGrant, access_grant_and_user
from .consent import Authorization, authorizations, has_consent, record_consent
from .refresh_token import refresh
from .revocation import revoke, revoke_manually

__all__ = [
    "ACCESS_TOKEN_LIFETIME",
    "CODE_LIFETIME",
    "AccessGrant",
    "Authorization",
    "CodeRequest",
    "IssuedTokens",
    "access_grant_and_user",
    "authorizations",
    "code_is_pending",
    "exchange_code",
    "has_consent",
    "issue_code",
    "record_consent",
    "refresh",
    "revoke",
    "revoke_manually",
]
