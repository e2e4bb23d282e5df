"""What outlives a request is what docs/architecture.md lists, and nothing else.

A module-level name that is bound again (`global`) or mutated after import (an item set or
deleted, a mutating method called on it) lives as long as the process: it must be in the
page's "Module state" table, with why. The server's per-worker state and the suite's run-wide
stash keys are held to their tables the same way. Sources are read with `ast`.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from reference_server.state import ServerState
from tests.architecture_page import table

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("reference_server", "client_kit", "steps")
MUTATORS = frozenset(
    {"append", "add", "update", "pop", "clear", "setdefault", "extend", "remove", "discard"}
    | {"insert", "popitem", "appendleft", "popleft"}
)


def module_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level by assignment."""
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        names |= {target.id for target in targets if isinstance(target, ast.Name)}
    return names


def _mutated(node: ast.AST, names: set[str]) -> set[str]:
    if isinstance(node, ast.Global):
        return set(node.names) & names
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = node.func.value
        if isinstance(owner, ast.Name) and owner.id in names and node.func.attr in MUTATORS:
            return {owner.id}
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign | ast.Delete):
        targets = node.targets
    elif isinstance(node, ast.AugAssign):
        targets = [node.target]
    return {
        target.value.id
        for target in targets
        if isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Name)
        and target.value.id in names
    }


def module_state(source: str) -> set[str]:
    """The module-level names of `source` that change after import."""
    tree = ast.parse(source)
    names = module_names(tree)
    return {name for node in ast.walk(tree) for name in _mutated(node, names)}


def product_state() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            found |= {(relative, name) for name in module_state(path.read_text())}
    return found


def test_every_module_state_is_listed_with_why() -> None:
    listed = {(row["module"], row["name"]) for row in table("Module state")}
    assert all(row["why it outlives a request"] for row in table("Module state"))
    found = product_state()
    assert len(found) > 3  # the finder reads real files
    assert found - listed == set(), "outlives a request, not in docs/architecture.md"
    assert listed - found == set(), "listed in docs/architecture.md, no longer module state"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("_seen = set()\ndef f(x):\n    _seen.add(x)\n", {"_seen"}),
        ("_n = 0\ndef f():\n    global _n\n    _n += 1\n", {"_n"}),
        ("_cache: dict = {}\ndef f(k, v):\n    _cache[k] = v\n", {"_cache"}),
        ("TABLE = {'a': 1}\ndef f():\n    return TABLE['a']\n", set()),
        ("def f():\n    local = []\n    local.append(1)\n", set()),
    ],
)
def test_the_finder_sees_state_and_leaves_constants(source: str, expected: set[str]) -> None:
    assert module_state(source) == expected


def test_the_server_state_of_a_worker_is_the_page_s() -> None:
    fields = {field.name for field in dataclasses.fields(ServerState)}
    assert fields == {row["field"] for row in table("One worker's state")}


def stash_keys() -> set[tuple[str, str]]:
    """(module, name) of every `pytest.StashKey` the suite defines."""
    found: set[tuple[str, str]] = set()
    for path in sorted((ROOT / "steps").rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and "StashKey" in ast.unparse(node):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found |= {
                    (path.relative_to(ROOT).as_posix(), target.id)
                    for target in targets
                    if isinstance(target, ast.Name)
                }
    return found


def test_the_suite_s_run_state_is_the_page_s() -> None:
    listed = {(row["module"], row["key"]) for row in table("One run's state")}
    assert stash_keys() == listed
