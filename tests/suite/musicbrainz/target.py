"""Start the musicbrainz-server stand-in as a child process, and describe it with the shipped
example profile filled in as a README-following user fills in theirs."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.suite.example_profiles import write_filled_in
from tests.support.stand_in import running_stand_in

ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class MusicBrainzTarget:
    """The running stand-in and the filled-in example profile that describes it."""

    base_url: str
    profile_path: Path
    ready: dict[str, Any]


@contextmanager
def musicbrainz_target(work: Path, defects: tuple[str, ...] = ()) -> Iterator[MusicBrainzTarget]:
    """The stand-in on a free loopback port, until the block ends; `defects` are added faults
    musicbrainz-server does not have (see app.DEFECTS)."""
    args = ("--defect", ",".join(defects))
    with running_stand_in("tests.suite.musicbrainz.app", work / "musicbrainz", *args) as ready:
        path = write_filled_in("musicbrainz", ready, work / "musicbrainz.toml")
        yield MusicBrainzTarget(ready["base_url"], path, ready)
