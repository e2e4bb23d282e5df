"""The rule catalogue (features/rules.toml): one place that names every rule the suite checks."""

from __future__ import annotations

import importlib.util
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _features_dir() -> Path:
    """features/ of a source checkout, else the installed data package `mb_oauth_features`."""
    checkout = Path(__file__).resolve().parents[2] / "features"
    if checkout.is_dir():
        return checkout
    spec = importlib.util.find_spec("mb_oauth_features")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the feature files are missing: reinstall mb-oauth")
    return Path(next(iter(spec.submodule_search_locations)))


FEATURES_DIR = _features_dir()
CATALOGUE_FILE = FEATURES_DIR / "rules.toml"
LEVELS = ("spec", "rfc", "info")


#: A rule's restriction of a dimension to some of its values: (dimension, values) pairs.
Restrictions = tuple[tuple[str, tuple[str, ...]], ...]


@dataclass(frozen=True)
class Rule:
    """One normative statement: where it comes from, how much a failure weighs, what it says,
    and the objects its check touches (features/dimensions.toml: their dimensions are what its
    scenarios must cover, tests/suite/test_variants.py), with any dimension it keeps to some
    values (`only`) and why (`because`)."""

    id: str
    section: str
    level: str
    title: str
    touches: tuple[str, ...] = ()
    restrictions: Restrictions = ()
    because: str = ""
    #: Combinations the rule leaves to another rule (`excluded`, each a `when` as in
    #: dimensions.toml's `impossible`), for the same `because`.
    excluded: tuple[tuple[tuple[str, Any], ...], ...] = ()

    @property
    def only(self) -> dict[str, tuple[str, ...]]:
        """The dimensions the rule keeps to some of their values."""
        return dict(self.restrictions)


class CatalogueError(ValueError):
    """The catalogue file is malformed (duplicate id, unknown level, missing field)."""


def parse_catalogue(text: str) -> dict[str, Rule]:
    """Parse catalogue TOML text; refuses duplicates and unknown levels so reports stay sound."""
    rules: dict[str, Rule] = {}
    for entry in tomllib.loads(text).get("rule", []):
        try:
            rule = Rule(
                entry["id"],
                str(entry["section"]),
                entry["level"],
                entry["title"],
                tuple(entry.get("touches") or ()),
                _restrictions(entry.get("id"), entry.get("only") or {}, entry.get("because")),
                str(entry.get("because") or ""),
                tuple(tuple(when.items()) for when in entry.get("excluded") or ()),
            )
        except KeyError as exc:
            raise CatalogueError(f"rule {entry!r} lacks {exc}") from None
        if rule.level not in LEVELS:
            raise CatalogueError(f"rule {rule.id}: unknown level {rule.level!r}")
        if rule.id in rules:
            raise CatalogueError(f"duplicate rule id {rule.id}")
        rules[rule.id] = rule
    return rules


def _restrictions(rule_id: object, table: dict[str, list[str]], because: object) -> Restrictions:
    """A rule's `only` table; keeping a dimension to some values needs a reason."""
    if table and not because:
        raise CatalogueError(f"rule {rule_id}: `only` needs `because`, the reason it may")
    return tuple((dimension, tuple(values)) for dimension, values in table.items())


def load_catalogue(path: Path | None = None) -> dict[str, Rule]:
    """Load the catalogue shipped next to the feature files (or another file, for tests)."""
    return parse_catalogue((path or CATALOGUE_FILE).read_text(encoding="utf-8"))
