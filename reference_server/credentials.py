"""Generation, hashing and comparison of every secret the server handles.

Codes, tokens and client secrets are random with 192 bits of entropy, so one SHA-256 is the
right hash for storing them (a slow hash would only slow the token endpoint). User passwords
are chosen by people and get scrypt.

Codes, access tokens and refresh tokens are split tokens: a selector, the key of the row
(time-ordered, so new rows append to the end of the table's B-tree and lookups of recent
tokens stay on hot pages however many rows there are), and a verifier of 192 random bits, of
which only the SHA-256 is stored and which is compared in constant time. Both go out as one
string of 43 base64url characters.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import time
from typing import NamedTuple

TOKEN_BYTES = 24  # 192 bits, 32 characters of base64url, like the real service
SELECTOR_BYTES = 8
SPLIT_TOKEN_LENGTH = 43  # base64url of selector + verifier, no padding
_LAST_CHARACTERS = frozenset("AEIMQUYcgkosw048")  # base64url digits with two low zero bits
_URLSAFE = bytes.maketrans(b"-_", b"+/")
_last_selector = 0


def new_selector(low: int | None = None) -> int:
    """Milliseconds since 1970, then 20 random bits (`low`): increasing, hard to guess, never
    reused by this process; a collision between processes is refused by the primary key."""
    global _last_selector
    low = secrets.randbits(20) if low is None else low & 0xFFFFF
    selector = (time.time_ns() // 1_000_000) << 20 | low
    if selector <= _last_selector:
        selector = _last_selector + 1
    _last_selector = selector
    return selector


class TokenKey(NamedTuple):
    """Where a presented code or token is stored and what its stored hash must be (a named
    tuple: made on every token request, at a third of a frozen dataclass's cost)."""

    selector: int  # the row's id
    digest: bytes  # SHA-256 of the verifier


def new_split_token() -> tuple[str, TokenKey]:
    """A code or token and the key of the row that stores it."""
    noise = secrets.token_bytes(TOKEN_BYTES + 3)  # one call to the system's random source
    verifier = noise[:TOKEN_BYTES]
    selector = new_selector(int.from_bytes(noise[TOKEN_BYTES:], "big"))
    raw = selector.to_bytes(SELECTOR_BYTES, "big") + verifier
    # INFO-TOKEN-FORMAT: 43 base64url characters, codes and tokens alike
    token = base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")
    return token, TokenKey(selector, hashlib.sha256(verifier).digest())


def token_key(token: str) -> TokenKey | None:
    """Where to look a presented code or token up; None for anything that is no split token
    (nothing this server issued)."""
    if len(token) != SPLIT_TOKEN_LENGTH or "+" in token or "/" in token:
        return None
    try:  # base64url, strictly: any other character is an error
        raw = binascii.a2b_base64(
            token.encode("ascii").translate(_URLSAFE) + b"=", strict_mode=True
        )
    except (binascii.Error, ValueError):
        return None
    # One token, one spelling: the last character's two spare bits must be zero (else four
    # strings would decode to the same token).
    if len(raw) != SELECTOR_BYTES + TOKEN_BYTES or token[-1] not in _LAST_CHARACTERS:
        return None
    selector = int.from_bytes(raw[:SELECTOR_BYTES], "big")
    return TokenKey(selector, hashlib.sha256(raw[SELECTOR_BYTES:]).digest())


def same_digest(stored: bytes, digest: bytes) -> bool:
    """Constant-time comparison of a stored hash with a presented token's."""
    return hmac.compare_digest(stored, digest)


_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_client_id() -> str:
    """A Client ID: a token that never begins with '-', which a command line would take for
    an option. Drawn again until it does not (1 draw in 64), so the other 63 characters are
    equally likely first and the alphabet and length stay."""
    while True:
        client_id = new_token()
        if not client_id.startswith("-"):
            return client_id


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


def _unmatchable_hash() -> str:
    """A stored-hash string with a random salt and a random digest: checking a password
    against it costs one scrypt like any other, and no password matches it (that would be an
    scrypt preimage). Made without running scrypt, which took ~55 ms of every start-up (the
    server and each CLI command) when this was the hash of a random password."""
    salt, digest = secrets.token_bytes(16), secrets.token_bytes(32)
    return f"scrypt${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


# A fixed hash to check against when the user does not exist, so that a login for an unknown
# name costs the same time as one for a known name.
DUMMY_PASSWORD_HASH = _unmatchable_hash()
