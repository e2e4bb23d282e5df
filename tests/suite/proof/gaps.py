"""Targets the suite is known to miss (or to blame on another rule): what a full proof found,
whose fix belongs in features/ or steps/, kept in known_gaps.json (target name -> what the
suite did). The sample in tests/suite/test_proof.py expects them to fail (strictly: a fixed
gap fails the test until its entry goes); `tools/proof --record-gaps` rewrites the entries of
the targets it ran from what they showed."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

GAPS_FILE = Path(__file__).with_name("known_gaps.json")


def known_gaps(path: Path = GAPS_FILE) -> dict[str, str]:
    """Target name -> what the suite did when the proof last ran it."""
    return dict(json.loads(path.read_text())) if path.exists() else {}


def record_gaps(ran: Iterable[str], found: Mapping[str, str], path: Path = GAPS_FILE) -> None:
    """The targets that ran lose their old entries and take what they showed now."""
    ran = set(ran)  # read once: a generator is empty the second time
    kept = {name: why for name, why in known_gaps(path).items() if name not in ran}
    entries = dict(sorted((kept | dict(found)).items()))
    path.write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
