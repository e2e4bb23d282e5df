"""Write a deployment profile as TOML (the standard library reads TOML but does not write it)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def _toml_value(value: Any) -> str:
    """A TOML literal for the few value types a profile holds."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    # A JSON string with ASCII escapes is a valid TOML basic string.
    return json.dumps(str(value), ensure_ascii=True)


def _toml_lines(table: Mapping[str, Any], prefix: str) -> list[str]:
    scalars = [(k, v) for k, v in table.items() if not isinstance(v, Mapping)]
    tables = [(k, v) for k, v in table.items() if isinstance(v, Mapping)]
    lines = [f"{k} = {_toml_value(v)}" for k, v in scalars if v is not None]
    for key, sub in tables:
        name = f"{prefix}.{key}" if prefix else key
        lines += ["", f"[{name}]", *_toml_lines(sub, name)]
    return lines


def write_profile(path: Path, profile: Mapping[str, Any]) -> Path:
    """Write a profile as TOML, readable by its owner only (it holds the secrets)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "# Written by mb-oauth-conformance for this run; holds secrets.\n"
    text += "\n".join(_toml_lines(profile, "")) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path
