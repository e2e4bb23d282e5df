"""Start the foreign-style provider as a child process and describe it in a profile, as an
operator would write one: its scope vocabulary, truthful capabilities (no out-of-band) and the
built-in `metabrainz` consent driver for its React-shell pages."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steps.profiles.writer import write_profile
from tests.support.stand_in import running_stand_in

ROOT = Path(__file__).resolve().parents[3]
DRIVER = "metabrainz"
RENAMED = ("tag", "rating", "collection", "submit_isrc", "submit_barcode")


@dataclass(frozen=True)
class ForeignTarget:
    """The running provider and the profile file that describes it."""

    base_url: str
    profile_path: Path
    password: str
    clients: dict[str, dict[str, str]]
    #: What the provider announced (base_url, ca_file, password, email, clients).
    ready: dict[str, Any]


def profile_for(ready: dict[str, Any]) -> dict[str, Any]:
    """The deployment profile of the provider (spec scope name = the provider's name)."""
    return {
        "name": "foreign-style provider (metabrainz.org-like)",
        "base_url": ready["base_url"],
        "ca_file": ready["ca_file"],
        "capabilities": {"test_clock": "/_test/clock", "oob": False, "manual_revocation": True},
        "user": {"username": "alice", "password": ready["password"], "email": "alice@example.org"},
        "clients": ready["clients"],
        "consent": {"driver": DRIVER},
        "scopes": {name: f"musicbrainz:{name}" for name in RENAMED},
    }


@contextmanager
def foreign_target(work: Path, redesigned: tuple[str, ...] = ()) -> Iterator[ForeignTarget]:
    """The provider on a free loopback port with a fresh SQLite file, until the block ends;
    `redesigned` pages (login, consent, error, applications) come in a shape no driver knows."""
    args = ("--redesigned", ",".join(redesigned))
    with running_stand_in("tests.suite.foreign.app", work / "provider", *args) as ready:
        path = write_profile(work / "foreign-profile.toml", profile_for(ready))
        yield ForeignTarget(ready["base_url"], path, ready["password"], ready["clients"], ready)
