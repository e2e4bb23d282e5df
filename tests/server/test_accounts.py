"""Registered applications (spec 2.1), in process: the Client ID each one gets."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference_server import accounts
from reference_server.storage import Store

NOW = 1_900_000_000


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "server.sqlite3")
    yield opened
    opened.close()


@pytest.mark.rule("APP-CLIENT-ID-UNIQUE")
def test_every_application_gets_a_client_id_of_its_own(store: Store) -> None:
    owner = accounts.add_user(store, "owner", "a long enough password", NOW)
    kinds = [("confidential", "https://client.example/cb"), ("public", "http://localhost/cb")]
    ids = [
        accounts.add_application(store, owner, f"app {n}", kind, uri, NOW).application.client_id
        for n, (kind, uri) in enumerate(kinds * 3)
    ]
    assert len(set(ids)) == len(ids)
    with pytest.raises(sqlite3.IntegrityError):  # nor can two rows ever share one
        store.run("UPDATE applications SET client_id = ? WHERE client_id = ?", ids[0], ids[1])
