"""Server-side sessions in SQLite, behind a `__Host-` cookie, with a CSRF token each.

A session row exists only for a logged-in user: anonymous visitors cost no row (3,000
anonymous GET /login made 3,000 rows, kept for 14 days). The login form's CSRF token is a
double-submit token in a `__Host-` cookie of its own, which no other site or subdomain can
set. Logging in creates the session (no fixation); logging out deletes it; `purge.py` removes
expired ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from .. import credentials
from ..accounts import Account, user_by_id
from ..state import ServerState
from .html import Viewer

COOKIE = "__Host-mb-session"
LOGIN_COOKIE = "__Host-mb-login"  # the login form's CSRF token: no session row before login
_TOKEN = re.compile(r"[A-Za-z0-9_-]{32}")
LIFETIME = 14 * 24 * 3600
FORM_TOKEN_LIFETIME = 3600


@dataclass
class BrowserSession:
    key: str  # the cookie value; only its hash is stored
    user: Account | None
    csrf: str
    fresh: bool = False  # created by this request: the response must set the cookie

    @property
    def key_hash(self) -> str:
        return credentials.token_hash(self.key)

    def csrf_ok(self, submitted: str | None) -> bool:
        return submitted is not None and credentials.same(self.csrf, submitted)


def load(state: ServerState, request: Request) -> BrowserSession | None:
    key = request.cookies.get(COOKIE)
    if not key:
        return None
    row = state.store.one(
        "SELECT user_id, csrf, expires_at FROM sessions WHERE session_hash = ?",
        credentials.token_hash(key),
    )
    if row is None or row["expires_at"] <= state.now():
        return None
    user = user_by_id(state.store, row["user_id"]) if row["user_id"] is not None else None
    return BrowserSession(key, user, row["csrf"])


def viewer(session: BrowserSession | None) -> Viewer | None:
    """Who the page header greets (None: the header offers to log in)."""
    if session is None or session.user is None:
        return None
    return Viewer(session.user.name, session.csrf)


def viewer_of(state: ServerState, request: Request) -> Viewer | None:
    """The viewer of a page rendered without a session at hand (error pages, 404)."""
    return viewer(load(state, request))


def login_token(request: Request) -> tuple[str, bool]:
    """The login form's CSRF token: the one of the browser's cookie, or a new one (True)."""
    found = request.cookies.get(LOGIN_COOKIE, "")
    if _TOKEN.fullmatch(found):
        return found, False
    return credentials.new_token(), True


def login_token_ok(request: Request, submitted: str | None) -> bool:
    found = request.cookies.get(LOGIN_COOKIE, "")
    if not submitted or not _TOKEN.fullmatch(found):
        return False
    return credentials.same(found, submitted)


def attach_login_token(response: Response, token: str) -> Response:
    response.set_cookie(LOGIN_COOKIE, token, path="/", secure=True, httponly=True, samesite="lax")
    return response


def forget_login_token(response: Response) -> Response:
    response.delete_cookie(LOGIN_COOKIE, path="/", secure=True, httponly=True, samesite="lax")
    return response


def create(state: ServerState, user: Account) -> BrowserSession:
    session = BrowserSession(credentials.new_token(), user, credentials.new_token(), fresh=True)
    now = state.now()
    state.store.run(
        "INSERT INTO sessions (session_hash, user_id, csrf, expires_at) VALUES (?, ?, ?, ?)",
        session.key_hash,
        user.id,
        session.csrf,
        now + LIFETIME,
    )
    return session


def log_in(state: ServerState, old: BrowserSession | None, user: Account) -> BrowserSession:
    if old is not None:
        delete(state, old)
    return create(state, user)


def delete(state: ServerState, session: BrowserSession) -> None:
    state.store.run("DELETE FROM sessions WHERE session_hash = ?", session.key_hash)


def attach(response: Response, session: BrowserSession) -> Response:
    if session.fresh:
        response.set_cookie(
            COOKIE,
            session.key,
            max_age=LIFETIME,
            path="/",
            secure=True,
            httponly=True,
            samesite="lax",
        )
    return response


def forget(response: Response) -> Response:
    response.delete_cookie(COOKIE, path="/", secure=True, httponly=True, samesite="lax")
    return response


# single-use tokens (the consent form, a flash message) ------------------------------------


def new_form_token(
    state: ServerState,
    session: BrowserSession,
    fingerprint: str,
    lifetime: int = FORM_TOKEN_LIFETIME,
) -> str:
    """A token that `use_form_token` accepts once, for this session and `fingerprint` (what
    it may be used for), within `lifetime` seconds."""
    token = credentials.new_token()
    now = state.now()
    state.store.run(
        "INSERT INTO form_tokens (token_hash, session_hash, fingerprint, expires_at)"
        " VALUES (?, ?, ?, ?)",
        credentials.token_hash(token),
        session.key_hash,
        fingerprint,
        now + lifetime,
    )
    return token


def use_form_token(
    state: ServerState, session: BrowserSession, fingerprint: str, token: str
) -> bool:
    """True once for a token issued to this session for this very use."""
    cursor = state.store.run(
        "DELETE FROM form_tokens WHERE token_hash = ? AND session_hash = ? AND fingerprint = ?"
        " AND expires_at > ?",
        credentials.token_hash(token),
        session.key_hash,
        fingerprint,
        state.now(),
    )
    return cursor.rowcount == 1
