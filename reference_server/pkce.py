"""Proof Key for Code Exchange (RFC 7636): supported, as the fuller description has it."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

METHODS = ("plain", "S256")  # VERSION-PKCE: the PKCE parameters are supported
# Used with fullmatch only: `$` would accept a trailing newline.
_PLAIN = re.compile(r"[A-Za-z0-9._~-]{43,128}")
_S256 = re.compile(r"[A-Za-z0-9_-]{43}")
_VERIFIER = _PLAIN


def challenge_problem(challenge: str | None, method: str | None) -> str | None:
    """Why the PKCE parameters of an authorization request are unacceptable, or None."""
    if challenge is None:
        if method is not None:
            return "code_challenge_method was sent without a code_challenge"
        return None
    method = method or "plain"
    if method not in METHODS:  # PKCE-BAD-METHOD
        return "code_challenge_method must be 'plain' or 'S256'"
    pattern = _S256 if method == "S256" else _PLAIN
    if not pattern.fullmatch(challenge):  # PKCE-CHALLENGE-FORMAT
        return f"the code_challenge is not a valid {method} challenge (RFC 7636 4.2)"
    return None


def verifier_matches(verifier: str, challenge: str, method: str) -> bool:
    if not _VERIFIER.fullmatch(verifier):
        return False
    if method == "S256":
        digest = hashlib.sha256(verifier.encode("ascii")).digest()
        computed = base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
    else:
        computed = verifier
    return hmac.compare_digest(computed, challenge)
