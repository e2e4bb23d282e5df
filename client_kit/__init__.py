"""Client kit for the MusicBrainz OAuth 2.0 service.

    from client_kit import Session, profiles, MemoryStore
    session = Session(profiles.musicbrainz(), client_id="...", client_secret="...")
    session.login(scopes=["profile", "tag"])           # loopback redirect, PKCE, state
    with httpx.Client(auth=session.auth()) as http:     # bearer token, refreshed as needed
        http.get("https://musicbrainz.org/ws/2/tag?...")

Public names (imported on first use, so that ``mb-oauth token`` starts quickly):

Session
    one user's login to one service: ``login``, ``alogin`` (asyncio), ``start_login``
    (a :class:`LoginHandle` for GUIs), ``begin_login`` + ``complete_login`` (start now,
    finish later), ``access_token``, ``auth()``, ``userinfo``, ``refresh``,
    ``revoke("access" | "all")``, ``logout``, ``status`` (a :class:`LoginStatus`).
    Logins check the store, the client and the scopes before the browser (``check=True``).
    ``broker_url=`` sends token requests to the app's back end (``broker_ca_bundle=``: the
    CA of its certificate). Every request has a deadline (``Profile.deadline``) and a size
    limit for its answer.
DesktopLogin
    what ``login`` shows a person on a :class:`~client_kit.ui.UserInterface` (browser, URL,
    countdown, pasted URL on a console); GUIs use ``LoginHandle`` instead.
LoginStatus
    who is logged in, with which scopes, until when, stored where (no secrets).
AuthorizationRequest
    step one of a login: the URL, ``state``, PKCE verifier, redirect URI; ``save`` (a 0600
    file) and ``load``, ``to_json``.
LoginHandle, LoginEvent
    a login beside a GUI's event loop (start, ``poll()`` events as data, ``submit``,
    ``cancel``), and one step of it (``authorization_url``, ``waiting``, ``received``,
    ``scopes_differ``, ``failed``, ``done``...).
LoopbackPages
    the application's own page, or a redirect to its URL, after the loopback login.
Profile, profiles
    where a service lives: ``profiles.musicbrainz()``, ``metabrainz()``, ``custom(url)``.
TokenSet
    the tokens of a grant; ``scopes`` are those the service granted.
KeyringStore, FileStore, MemoryStore, StoreKey
    where tokens are kept (the system keyring by default; a file store only in a private
    folder, never through a symbolic link).
BearerAuth
    the ``httpx.Auth`` of ``session.auth()``.
KitError and its subclasses
    one exception per thing a caller can act on, with typed facts (``setting``, ``seconds``,
    ``ports``, ``operation``); ``KeyringFailure``: the keyring failed (another store would
    work). No exit codes: ``mb-oauth`` maps the types to its own (``client_kit.cli_exit``).
broker
    the module of the reference token broker (``client_kit.broker.create_app``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__all__ = [
    "AccessDenied",
    "AuthorizationError",
    "AuthorizationRequest",
    "BearerAuth",
    "CertificateRejected",
    "ClientRejected",
    "ConfigurationError",
    "DesktopLogin",
    "FileStore",
    "InsecureTransportError",
    "KeyringFailure",
    "KeyringStore",
    "KeyringTimeout",
    "KitError",
    "LoginCancelled",
    "LoginEvent",
    "LoginHandle",
    "LoginRequired",
    "LoginStatus",
    "LoopbackPages",
    "MemoryStore",
    "NoKeyringBackend",
    "Profile",
    "RefreshTokenRejected",
    "Session",
    "StorageError",
    "StoreKey",
    "TemporaryFailure",
    "TokenSet",
    "profiles",
]

_WHERE = {
    "AuthorizationRequest": "client_kit.authorization",
    "LoginEvent": "client_kit.flow",
    "LoginHandle": "client_kit.handle",
    "LoopbackPages": "client_kit.pages",
    "BearerAuth": "client_kit.auth",
    "Session": "client_kit.session",
    "Profile": "client_kit.profiles",
    "TokenSet": "client_kit.tokens",
    "FileStore": "client_kit.storage",
    "KeyringStore": "client_kit.keyring_store",
    "LoginStatus": "client_kit.status",
    "DesktopLogin": "client_kit.desktop",
    "MemoryStore": "client_kit.storage",
    "StoreKey": "client_kit.storage",
    "profiles": "client_kit.profiles",
}

if TYPE_CHECKING:
    from client_kit import profiles
    from client_kit.auth import BearerAuth
    from client_kit.authorization import AuthorizationRequest
    from client_kit.desktop import DesktopLogin
    from client_kit.errors import (
        AccessDenied,
        AuthorizationError,
        CertificateRejected,
        ClientRejected,
        ConfigurationError,
        InsecureTransportError,
        KeyringFailure,
        KeyringTimeout,
        KitError,
        LoginCancelled,
        LoginRequired,
        NoKeyringBackend,
        RefreshTokenRejected,
        StorageError,
        TemporaryFailure,
    )
    from client_kit.flow import LoginEvent
    from client_kit.handle import LoginHandle
    from client_kit.keyring_store import KeyringStore
    from client_kit.pages import LoopbackPages
    from client_kit.profiles import Profile
    from client_kit.session import Session
    from client_kit.status import LoginStatus
    from client_kit.storage import FileStore, MemoryStore, StoreKey
    from client_kit.tokens import TokenSet


def __getattr__(name: str) -> object:
    if name not in __all__:
        raise AttributeError(f"module 'client_kit' has no attribute {name!r}")
    module = importlib.import_module(_WHERE.get(name, "client_kit.errors"))
    value = module if name == "profiles" else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """``dir(client_kit)`` lists the public names, imported or not yet."""
    return sorted(set(globals()) | set(__all__))
