"""Every answer of the token, revocation and user-information endpoints, each written once:
the token answer (spec 2.3), the empty revocation answer (RFC 7009 2.2), the user's profile,
the JSON error (RFC 6749 5.2) and the Bearer challenge (RFC 6750 3).
"""

from __future__ import annotations

import functools
import re
from urllib.parse import quote

from ..accounts import Account
from ..answers import Answer, encode_json
from ..errors import BearerError, OAuthError
from ..grants import IssuedTokens

REALM = "MusicBrainz OAuth reference server"


def token_fields(tokens: IssuedTokens) -> dict[str, object]:
    """The token answer: the fields of spec 2.3 and no others."""
    fields: dict[str, object] = {
        "access_token": tokens.access_token,  # TOKEN-RESPONSE-ACCESS-TOKEN: a string
        "token_type": "Bearer",  # TOKEN-TYPE-BEARER, spelt as INFO-TOKEN-TYPE-CASE records
        "expires_in": tokens.expires_in,  # TOKEN-EXPIRES-IN-3600: an integer
    }
    if tokens.refresh_token:
        fields["refresh_token"] = tokens.refresh_token
    return fields  # INFO-TOKEN-EXTRA-FIELDS: these fields, no others


def token_answer(tokens: IssuedTokens) -> Answer:
    return Answer.encoded_json(_token_body(tokens), 200)  # TOKEN-RESPONSE-STATUS-200


#: Whether a string needs no JSON escaping: base64url, what every token here is made of.
_plain = re.compile(r"[A-Za-z0-9_-]*").fullmatch


def _token_body(tokens: IssuedTokens) -> bytes:
    """`encode_json(token_fields(tokens))`, byte for byte, without the encoder when the
    tokens are base64url (they always are): the encoder costs a token request 1.5-2.5 us.
    tests/server/test_token_answer.py holds the two equal for every answer, so a field added
    to `token_fields` fails that test until it is written here too."""
    refresh = tokens.refresh_token or ""
    if type(tokens.expires_in) is not int or not _plain(tokens.access_token + refresh):
        return encode_json(token_fields(tokens))
    also = f',"refresh_token":"{refresh}"' if refresh else ""
    return (
        f'{{"access_token":"{tokens.access_token}","token_type":"Bearer",'
        f'"expires_in":{tokens.expires_in}{also}}}'
    ).encode("ascii")


def revoked_answer() -> Answer:
    # REVOKE-EMPTY-200, REVOKE-INVALID-TOKEN-200: 200 and an empty body, whether or not the
    # token was valid (RFC 7009 2.2); INFO-REVOKE-HEADERS: no content type, a length of 0
    return Answer.empty()


def error_answer(error: OAuthError) -> Answer:
    headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in error.headers.items()]
    if error.error == "invalid_client":  # TOKEN-ERR-INVALID-CLIENT: 401 with its challenge
        headers.append((b"www-authenticate", f'Basic realm="{REALM}"'.encode()))
    body = {"error": error.error, "error_description": error.description}
    return Answer.json(body, error.status, headers)


def _header_safe(text: str) -> str:
    """Only the characters RFC 6750 3 allows in a quoted error_description."""
    return "".join(c for c in text if 0x20 <= ord(c) <= 0x7E and c not in '"\\')


def challenge_answer(error: BearerError) -> Answer:
    parts = [f'realm="{REALM}"']
    if error.error:
        parts.append(f'error="{error.error}"')
        parts.append(f'error_description="{_header_safe(error.description)}"')
    if error.scope:
        parts.append(f'scope="{error.scope}"')
    challenge = (b"www-authenticate", ("Bearer " + ", ".join(parts)).encode("latin-1"))
    body = {"error": error.error, "error_description": error.description} if error.error else {}
    return Answer.json(body, error.status, [challenge])


def profile(user: Account, base_url: str, with_email: bool) -> dict[str, object]:
    """The fields of the real service's answer."""
    # INFO-USERINFO-FIELDS: these names (the real service's)
    info: dict[str, object] = {
        "sub": user.name,  # SCOPE-PROFILE-GRANTS-PROFILE: the user's name
        "profile": f"{base_url}/user/{quote(user.name, safe='')}",
        "metabrainz_user_id": user.id,
    }
    if user.website:
        info["website"] = user.website
    if user.gender:
        info["gender"] = user.gender
    info["zoneinfo"] = user.timezone
    if with_email and user.email:  # SCOPE-EMAIL-GRANTS-EMAIL
        info["email"] = user.email
        info["email_verified"] = user.email_verified
    return info


def profile_answer(user: Account, base_url: str, with_email: bool) -> Answer:
    return Answer.encoded_json(_profile_body(user, base_url, with_email))


@functools.lru_cache(maxsize=1024)
def _profile_body(user: Account, base_url: str, with_email: bool) -> bytes:
    """The encoded profile, kept: the same user seen through the same scope reads the same
    bytes (the key is every field of the row just read, so a changed user is a new key)."""
    return encode_json(profile(user, base_url, with_email))
