"""A one-time message for the page after a redirect (POST-redirect-GET) that may hold a secret.

"Reset secret" answers with a redirect, so that reloading the page shows it again instead of
resetting the secret again; the new secret travels to that next page in a short-lived
`__Host-` cookie, sealed (AES-GCM) with a key that only the server's database holds and bound
to the session, and is shown once: the page that shows it deletes the cookie. The database
never holds the secret (only its hash), and a cookie jar on disk holds only ciphertext.
"""

from __future__ import annotations

import base64
import binascii
import json
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from starlette.requests import Request
from starlette.responses import Response

from ..state import ServerState
from .sessions import BrowserSession

COOKIE = "__Host-mb-flash"
LIFETIME = 300
_KEY_SETTING = "flash_key"


def _key(state: ServerState) -> bytes:
    """The server's sealing key, made once and shared by every worker through the database."""
    fresh = base64.b64encode(AESGCM.generate_key(bit_length=256)).decode()
    state.store.run(
        "INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)", _KEY_SETTING, fresh
    )
    return base64.b64decode(state.store.setting(_KEY_SETTING) or fresh)


def attach(
    state: ServerState, response: Response, session: BrowserSession, message: dict[str, str]
) -> Response:
    nonce = os.urandom(12)
    sealed = AESGCM(_key(state)).encrypt(
        nonce, json.dumps(message).encode(), session.key_hash.encode()
    )
    value = base64.urlsafe_b64encode(nonce + sealed).decode()
    response.set_cookie(
        COOKIE, value, max_age=LIFETIME, path="/", secure=True, httponly=True, samesite="lax"
    )
    return response


def read(state: ServerState, request: Request, session: BrowserSession) -> dict[str, str] | None:
    """The message for this session, or None (absent, damaged, another session's)."""
    raw = request.cookies.get(COOKIE)
    if not raw:
        return None
    try:
        data = base64.urlsafe_b64decode(raw.encode())
        plain = AESGCM(_key(state)).decrypt(data[:12], data[12:], session.key_hash.encode())
        message = json.loads(plain)
    except (ValueError, binascii.Error, InvalidTag):
        return None
    if not isinstance(message, dict) or not all(isinstance(v, str) for v in message.values()):
        return None
    return {str(k): v for k, v in message.items()}


def forget(response: Response) -> Response:
    response.delete_cookie(COOKIE, path="/", secure=True, httponly=True, samesite="lax")
    return response
