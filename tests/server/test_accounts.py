"""Registered applications (spec 2.1), in process: the Client ID each one gets, one that a
command line never takes for an option."""

from __future__ import annotations

import re
import secrets
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference_server import accounts, credentials
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


def test_a_client_id_never_begins_with_a_hyphen(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command line takes `-abc...` for an option: the random source's draw that would
    begin with '-' is never a Client ID."""
    owner = accounts.add_user(store, "owner", "a long enough password", NOW)
    draws = iter(["-" + "A" * 31, "-" + "B" * 31, "C" * 32, "D" * 32, "E" * 32])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda nbytes=None: next(draws))
    made = accounts.add_application(store, owner, "app", "public", "http://localhost/cb", NOW)
    assert made.application.client_id == "C" * 32


def test_client_ids_keep_their_alphabet_and_length_but_the_leading_hyphen() -> None:
    ids = [credentials.new_client_id() for _ in range(4000)]
    assert all(len(i) == 32 and re.fullmatch(r"[A-Za-z0-9_-]+", i) for i in ids)
    assert not [i for i in ids if i.startswith("-")]
    first = {i[0] for i in ids}
    assert len(first) == 63  # every other character of base64url begins some
    assert "-" in "".join(i[1:] for i in ids)  # and '-' stays inside them
