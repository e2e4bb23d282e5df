"""Client kit for the MusicBrainz OAuth 2.0 service.

    from client_kit import Session, profiles, MemoryStore
    session = Session(profiles.musicbrainz(), client_id="...", client_secret="...")
    session.login(scopes=["profile", "tag"])           # loopback redirect, PKCE, state
    with httpx.Client(auth=session.auth()) as http:     # bearer token, refreshed as needed
        http.get("https://musicbrainz.org/ws/2/tag?...")

Names are imported on first use so that ``mb-oauth token`` starts quickly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "AccessDenied",
    "AuthorizationError",
    "BearerAuth",
    "ClientRejected",
    "ConfigurationError",
    "FileStore",
    "InsecureTransportError",
    "KeyringStore",
    "KeyringTimeout",
    "KitError",
    "LoginCancelled",
    "LoginRequired",
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
    "BearerAuth": "client_kit.auth",
    "Session": "client_kit.session",
    "Profile": "client_kit.profiles",
    "TokenSet": "client_kit.tokens",
    "FileStore": "client_kit.storage",
    "KeyringStore": "client_kit.storage",
    "MemoryStore": "client_kit.storage",
    "StoreKey": "client_kit.storage",
    "profiles": "client_kit.profiles",
}

if TYPE_CHECKING:
    from client_kit import profiles
    from client_kit.auth import BearerAuth
    from client_kit.errors import (
        AccessDenied,
        AuthorizationError,
        ClientRejected,
        ConfigurationError,
        InsecureTransportError,
        KeyringTimeout,
        KitError,
        LoginCancelled,
        LoginRequired,
        NoKeyringBackend,
        RefreshTokenRejected,
        StorageError,
        TemporaryFailure,
    )
    from client_kit.profiles import Profile
    from client_kit.session import Session
    from client_kit.storage import FileStore, KeyringStore, MemoryStore, StoreKey
    from client_kit.tokens import TokenSet


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'client_kit' has no attribute {name!r}")
    module = importlib.import_module(_WHERE.get(name, "client_kit.errors"))
    value = module if name == "profiles" else getattr(module, name)
    globals()[name] = value
    return value
