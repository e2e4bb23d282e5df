"""What the suite knows of a collected scenario (its rules, level, tags and step texts), kept
on its test item by the selection (steps/run/selection.py) and read wherever a scenario's words
decide something: its isolation class, its twins, the rules a check may fail for."""

from __future__ import annotations

from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class ScenarioMeta:
    """What the suite knows of a collected scenario."""

    nodeid: str
    feature: str
    feature_file: str
    name: str
    rules: tuple[str, ...]
    level: str
    slow: bool
    lasting: bool
    steps: tuple[str, ...]
    #: Each step's keyword type ("given", "when", "then"), in the order of `steps`.
    types: tuple[str, ...] = ()
    #: A combination beyond all-pairs (an Examples row tagged @product).
    product_only: bool = False


META_KEY = pytest.StashKey[ScenarioMeta]()
