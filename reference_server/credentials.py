"""Generation, hashing and comparison of every secret the server handles.

Codes, tokens and client secrets are random with 192 bits of entropy, so one SHA-256 is the
right hash for storing them (a slow hash would only slow the token endpoint). User passwords
are chosen by people and get scrypt.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

TOKEN_BYTES = 24  # 192 bits, 32 characters of base64url, like the real service

_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def same(a: str, b: str) -> bool:
    """Constant-time comparison of two strings."""
    return hmac.compare_digest(
        a.encode("utf-8", "surrogatepass"), b.encode("utf-8", "surrogatepass")
    )


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(
        password.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P, dklen=32
    )
    return f"scrypt${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def check_password(password: str, stored: str) -> bool:
    try:
        scheme, salt_b64, digest_b64 = stored.split("$")
    except ValueError:
        return False
    if scheme != "scrypt":
        return False
    digest = hashlib.scrypt(
        password.encode("utf-8", "surrogatepass"),
        salt=base64.b64decode(salt_b64),
        n=_SCRYPT_N,
        r=_SCRYPT_R,
        p=_SCRYPT_P,
        dklen=32,
    )
    return hmac.compare_digest(digest, base64.b64decode(digest_b64))


# A fixed hash to check against when the user does not exist, so that a login for an unknown
# name costs the same time as one for a known name.
DUMMY_PASSWORD_HASH = hash_password(secrets.token_urlsafe(16))
