"""The rule catalogue (features/rules.toml): one place that names every rule the suite checks."""

from __future__ import annotations

import importlib.util
import tomllib
from dataclasses import dataclass
from pathlib import Path


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


#: The variants a rule's words may cover, by dimension (steps/rules/variants.py reads them from the
#: scenarios): the kind of application, the kind of token request, how a bearer token is
#: passed, the kind of authorization error, and why a code or token presented is not valid.
DIMENSIONS: dict[str, tuple[str, ...]] = {
    "client": ("web", "installed"),
    "grant": ("code", "refresh"),
    "delivery": ("header", "body", "query"),
    "error": ("access_denied", "invalid_scope", "unsupported_response_type", "invalid_request"),
    "token": ("unknown", "used", "foreign", "revoked", "expired"),
}
Variants = tuple[tuple[str, tuple[str, ...]], ...]


@dataclass(frozen=True)
class Rule:
    """One normative statement: where it comes from, how much a failure weighs, what it says,
    and the variants its words cover (each must be checked: tests/suite/test_variants.py)."""

    id: str
    section: str
    level: str
    title: str
    variants: Variants = ()

    def covers(self) -> dict[str, tuple[str, ...]]:
        """The declared variants by dimension."""
        return dict(self.variants)


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
                _variants(entry.get("id"), entry.get("variants") or {}),
            )
        except KeyError as exc:
            raise CatalogueError(f"rule {entry!r} lacks {exc}") from None
        if rule.level not in LEVELS:
            raise CatalogueError(f"rule {rule.id}: unknown level {rule.level!r}")
        if rule.id in rules:
            raise CatalogueError(f"duplicate rule id {rule.id}")
        rules[rule.id] = rule
    return rules


def _variants(rule_id: object, table: dict[str, list[str]]) -> Variants:
    """A rule's `variants` table, every dimension and value one of DIMENSIONS'."""
    for dimension, values in table.items():
        known = DIMENSIONS.get(dimension)
        if known is None or not set(values) <= set(known):
            raise CatalogueError(f"rule {rule_id}: unknown variants {dimension} = {values}")
    return tuple((dimension, tuple(values)) for dimension, values in table.items())


def load_catalogue(path: Path | None = None) -> dict[str, Rule]:
    """Load the catalogue shipped next to the feature files (or another file, for tests)."""
    return parse_catalogue((path or CATALOGUE_FILE).read_text(encoding="utf-8"))
