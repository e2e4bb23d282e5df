"""PKCE values (RFC 7636): verifiers, challenges and deliberately malformed challenges."""

from __future__ import annotations

import base64
import hashlib
import secrets

UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"


def new_verifier(length: int = 64) -> str:
    """A random code_verifier of unreserved characters (43-128 long)."""
    return "".join(secrets.choice(UNRESERVED) for _ in range(length))


def url_safe_verifier() -> str:
    """A verifier whose S256 challenge holds both '-' and '_': the characters base64url has
    and base64 has not, so a server that encodes the digest the wrong way fails every time."""
    while True:
        verifier = new_verifier()
        challenge = challenge_for(verifier, "S256")
        if "-" in challenge and "_" in challenge:
            return verifier


def challenge_for(verifier: str, method: str) -> str:
    """The code_challenge of a verifier under a method."""
    if method == "S256":
        digest = hashlib.sha256(verifier.encode("ascii")).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
    return verifier


def malformed_challenge(shape: str) -> str:
    """A challenge of a described wrong shape: 'N characters long' or 'made of forbidden
    characters'."""
    if shape.endswith("characters long"):
        return new_verifier(int(shape.split()[0]))
    if shape == "made of forbidden characters":
        return "!" * 20 + " " * 3 + "%" * 10 + "+/=" * 4
    raise ValueError(f"unknown challenge shape {shape!r}")
