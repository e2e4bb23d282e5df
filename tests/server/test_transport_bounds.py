"""The frameworks whose internals the transport uses are bounded above in pyproject.toml, each
just past the version pinned in constraints.txt: a newer release is installed only once the
whole suite ran on it and the bound was raised (the reasons: pyproject.toml, beside them)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
BOUNDED = ("starlette", "uvicorn", "httptools", "uvloop")


def server_requirements() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = [Requirement(line) for line in project["optional-dependencies"]["server"]]
    return {requirement.name.lower(): requirement for requirement in found}


def pins() -> dict[str, Version]:
    pinned: dict[str, Version] = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        name, sep, version = line.partition("==")
        if sep:
            pinned[name.strip().lower()] = Version(version.strip())
    return pinned


def next_minor(version: Version) -> Version:
    return Version(f"{version.major}.{version.minor + 1}")


@pytest.mark.parametrize("name", BOUNDED)
def test_the_bound_is_the_next_minor_after_the_pin(name: str) -> None:
    requirement = server_requirements()[name]
    pinned = pins()[name]
    uppers = [Version(s.version) for s in requirement.specifier if s.operator == "<"]
    assert uppers == [next_minor(pinned)], f"{name}: {requirement} against the pin {pinned}"
    assert requirement.specifier.contains(pinned)
