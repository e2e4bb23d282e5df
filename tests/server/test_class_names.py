"""Every class of the server has a name of its own: none is also a class of the kit or of the
suite (a reader who meets `Session` or `User` knows which package's it is). Read with `ast`."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def class_names(folder: Path) -> dict[str, list[str]]:
    """Each class name defined under `folder`, with the files that define it."""
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(str(path.relative_to(ROOT)))
    return found


def shared(server: dict[str, list[str]], others: Iterable[dict[str, list[str]]]) -> list[str]:
    return sorted(
        f"{name}: {', '.join(server[name] + where[name])}"
        for where in others
        for name in server.keys() & where.keys()
    )


def test_no_server_class_shares_its_name_with_the_kits_or_the_suites() -> None:
    server = class_names(ROOT / "reference_server")
    others = [class_names(ROOT / "client_kit"), class_names(ROOT / "steps")]
    assert shared(server, others) == []
    assert [name for name, files in server.items() if len(files) > 1] == []


def test_the_check_sees_a_shared_name(tmp_path: Path) -> None:
    server = {"Session": ["reference_server/web/sessions.py"], "Answer": ["a.py"]}
    kit = {"Session": ["client_kit/session.py"]}
    assert shared(server, [kit]) == [
        "Session: reference_server/web/sessions.py, client_kit/session.py"
    ]
