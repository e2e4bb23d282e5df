"""The example profiles of steps/profiles/, filled in as a user following the docs fills in
theirs: the base URL (and, for a private CA, ca_file), the test account, and each application's
Client ID and secret. Nothing else changes; a placeholder left anywhere else would be a value
the docs do not tell the user to fill in."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

from steps.profiles.writer import write_profile

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "steps" / "profiles"
PLACEHOLDERS = {"...", "your-test-account", "its password", "address@example.org"}
#: The true verdicts of each example's stand-in: for every rule (foreign), or for every rule
#: that does not simply pass (musicbrainz: a rule without an entry passes).
TRUTH_FILES = {
    "metabrainz": "tests/suite/foreign/truth.toml",
    "musicbrainz": "tests/suite/musicbrainz/expected.toml",
}
FOREIGN_TRUTH = tomllib.loads((ROOT / TRUTH_FILES["metabrainz"]).read_text())
MB_EXPECTED = tomllib.loads((ROOT / TRUTH_FILES["musicbrainz"]).read_text())
#: The page that tells a user how to fill in and run the examples.
GUIDE = "checking-a-deployment.md"
BROKEN = ("fail", "warning")
ROLES = ("web", "installed", "other_web")


def example_file(name: str) -> str:
    return f"steps/profiles/{name}.example.toml"


def example(name: str) -> dict[str, Any]:
    """An example profile as shipped (`musicbrainz` or `metabrainz`)."""
    with (EXAMPLES / f"{name}.example.toml").open("rb") as handle:
        return tomllib.load(handle)


def filled_in(name: str, ready: dict[str, Any]) -> dict[str, Any]:
    """The example with a stand-in's credentials, base URL and CA written in."""
    data = copy.deepcopy(example(name))
    data["base_url"], data["ca_file"] = ready["base_url"], ready["ca_file"]
    data["user"] |= {"username": "alice", "password": ready["password"], "email": ready["email"]}
    for role, table in data["clients"].items():
        client = ready["clients"][role]
        table |= {"client_id": client["client_id"], "client_secret": client["client_secret"]}
    left = sorted(placeholders(data))
    assert not left, f"the example profile {name} has placeholders docs/{GUIDE} skips: {left}"
    return data


def placeholders(value: Any, where: str = "") -> list[str]:
    """Where a placeholder value is left in a profile."""
    if isinstance(value, dict):
        return [p for key, sub in value.items() for p in placeholders(sub, f"{where}.{key}")]
    return [where.lstrip(".")] if isinstance(value, str) and value in PLACEHOLDERS else []


def write_filled_in(name: str, ready: dict[str, Any], path: Path) -> Path:
    return write_profile(path, filled_in(name, ready))
