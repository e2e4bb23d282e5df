"""A one-time message for the page after a redirect (POST-redirect-GET) that may hold a secret.

"Reset secret" answers with a redirect, so that reloading the page shows it again instead of
resetting the secret again; the new secret travels to that next page in a short-lived
`__Host-` cookie, sealed (AES-GCM) with a key that only the server's database holds and bound
to the session. The database never holds the secret (only its hash), and a cookie jar on disk
holds only ciphertext.

Shown once, by the server's word, not the browser's: the sealed message carries a single-use
token of the session (`sessions.new_form_token`), spent when the message is read. The page
that shows it also deletes the cookie, but the same cookie replayed (a browser that kept it, a
copied cookie jar) finds its token spent and shows nothing.
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
from . import sessions
from .sessions import BrowserSession

COOKIE = "__Host-mb-flash"
LIFETIME = 300
_KEY_SETTING = "flash_key"
_ONCE = "once"  # the message's single-use token
_PURPOSE = "flash"  # the token's fingerprint: it opens a flash message and nothing else


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
    once = sessions.new_form_token(state, session, _PURPOSE, LIFETIME)
    nonce = os.urandom(12)
    sealed = AESGCM(_key(state)).encrypt(
        nonce, json.dumps({**message, _ONCE: once}).encode(), session.key_hash.encode()
    )
    value = base64.urlsafe_b64encode(nonce + sealed).decode()
    response.set_cookie(
        COOKIE, value, max_age=LIFETIME, path="/", secure=True, httponly=True, samesite="lax"
    )
    return response


def read(state: ServerState, request: Request, session: BrowserSession) -> dict[str, str] | None:
    """The message for this session, once, or None (absent, damaged, another session's, or
    read before)."""
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
    once = message.pop(_ONCE, "")
    if not sessions.use_form_token(state, session, _PURPOSE, once):
        return None
    return {str(k): v for k, v in message.items()}


def forget(response: Response) -> Response:
    response.delete_cookie(COOKIE, path="/", secure=True, httponly=True, samesite="lax")
    return response
