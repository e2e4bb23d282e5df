"""Split tokens (credentials.py): found by selector, checked by the verifier's hash, one
spelling each, and nothing of them stored but that hash."""

from __future__ import annotations

import base64
import sqlite3
from pathlib import Path

import pytest

from reference_server import accounts, credentials, grants
from reference_server.errors import OAuthError
from reference_server.storage import Store

REDIRECT = "https://client.example/cb"
NOW = 1_800_000_000


def test_split_tokens_are_found_by_selector_and_checked_by_verifier(tmp_path: Path) -> None:
    store = Store(tmp_path / "server.sqlite3")
    try:
        owner = accounts.add_user(store, "owner", "password-123", NOW)
        app = accounts.add_application(store, owner, "app", "public", REDIRECT, NOW).application
        request = grants.CodeRequest(app, owner, "profile", REDIRECT, None, None, offline=True)
        code = grants.issue_code(store, NOW, request)
        tokens = grants.exchange_code(store, NOW, app, code, REDIRECT, None)
        assert tokens.refresh_token is not None
        for token in (code, tokens.access_token, tokens.refresh_token):
            assert len(token) == credentials.SPLIT_TOKEN_LENGTH
            assert credentials.token_key(token) is not None
        assert grants.access_grant_and_user(store, NOW, tokens.access_token) is not None
        # The same selector with another verifier: refused.
        for token in (tokens.access_token, tokens.refresh_token):
            raw = bytearray(base64.urlsafe_b64decode(token + "="))
            raw[-1] ^= 1
            forged = base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()
            forged_key, key = credentials.token_key(forged), credentials.token_key(token)
            assert forged_key is not None and key is not None
            assert forged_key.selector == key.selector
            assert grants.access_grant_and_user(store, NOW, forged) is None
            with pytest.raises(OAuthError):
                grants.refresh(store, NOW, app, forged, None)
        # Another spelling of the same bytes (spare bits of the last character) is refused.
        twin = tokens.access_token[:-1] + chr(ord(tokens.access_token[-1]) + 1)
        assert credentials.token_key(twin) is None
        # Nor standard base64 or other characters in place of base64url ones.
        for odd in ("+", "/", ".", "="):
            assert credentials.token_key(odd + tokens.access_token[1:]) is None
        assert grants.access_grant_and_user(store, NOW, twin) is None
        # Nothing of a token is stored but the verifier's hash.
        dump = "\n".join(store.db.iterdump())
        for token in (code, tokens.access_token, tokens.refresh_token):
            assert token not in dump
    finally:
        store.close()


def test_the_indexes_of_the_earlier_token_layout_are_dropped(tmp_path: Path) -> None:
    """Earlier versions made partial indexes for tokens of a layout that is gone; a database
    they made loses them when opened (each one more index on every insert of a token)."""
    path = tmp_path / "server.sqlite3"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("CREATE UNIQUE INDEX grants_legacy ON grants(refresh_hash) WHERE id < 1")
    db.execute("CREATE UNIQUE INDEX codes_legacy ON codes(code_hash) WHERE id < 1")
    db.commit()
    db.close()
    store = Store(path)
    try:
        indexes = {row[0] for row in store.db.execute("SELECT name FROM sqlite_master")}
        assert not {name for name in indexes if name.endswith("_legacy")}
    finally:
        store.close()
