"""The client kit's modules import each other without a cycle, not even a hidden one.

The graph is read from the source with `ast` (nothing is imported): an import at module level,
under TYPE_CHECKING or inside a function is an edge alike, so a cycle cannot hide in a lazy
import. `from client_kit import name` leads to the submodule `name` when there is one, else to
the package itself (whose `__init__` names every public class). A cycle is reported as the
modules it runs through.
"""

from __future__ import annotations

import ast
from pathlib import Path

import client_kit

KIT = Path(client_kit.__file__).parent
Graph = dict[str, set[str]]


def module_name(package: Path, path: Path) -> str:
    """``client_kit._session`` for client_kit/session.py; the package itself for __init__."""
    parts = [package.name, *path.relative_to(package).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def absolute(home: str, node: ast.ImportFrom) -> str:
    """The module an ``ImportFrom`` names, a relative one resolved from the package ``home``."""
    if not node.level:
        return node.module or ""
    base = home.split(".")[: len(home.split(".")) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imported(module: str, tree: ast.AST, known: set[str], *, package: bool = False) -> set[str]:
    """The modules of ``known`` that ``tree`` imports anywhere in its body (``package``: it
    is a package's ``__init__``, the home of its relative imports)."""
    home = module if package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            source = absolute(home, node)
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                found.add(sub if sub in known else source)
    return (found & known) - {module}


def import_graph(package: Path) -> Graph:
    """Module -> the package's modules it imports."""
    paths = {module_name(package, path): path for path in sorted(package.rglob("*.py"))}
    known = set(paths)
    return {
        name: imported(
            name,
            ast.parse(path.read_text(), filename=str(path)),
            known,
            package=path.name == "__init__.py",
        )
        for name, path in paths.items()
    }


def find_cycle(graph: Graph) -> list[str] | None:
    """One cycle as the modules it runs through (first module repeated at the end), or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if cycle := visit(target):
                return cycle
        path.pop()
        done.add(node)
        return None

    for start in sorted(graph):
        if cycle := visit(start):
            return cycle
    return None


def test_the_graph_is_read_from_the_kit() -> None:
    """The check below reads real edges: the facade imports the login's steps."""
    graph = import_graph(KIT)
    assert "client_kit._session" in graph and "client_kit" in graph
    assert "client_kit._twostep" in graph["client_kit._session"]
    assert "client_kit._errors" in graph["client_kit._session"]


def test_the_kit_has_no_import_cycle() -> None:
    cycle = find_cycle(import_graph(KIT))
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def plant(tmp_path: Path, files: dict[str, str]) -> Path:
    package = tmp_path / "planted"
    package.mkdir()
    for name, source in {"__init__.py": "", **files}.items():
        (package / name).write_text(source)
    return package


def test_a_cycle_through_a_function_level_import_is_found(tmp_path) -> None:
    package = plant(
        tmp_path,
        {
            "a.py": "from planted.b import B\n",
            "b.py": "def later():\n    from planted import c\n",
            "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import planted.a\n",
        },
    )
    assert find_cycle(import_graph(package)) == ["planted.a", "planted.b", "planted.c", "planted.a"]


def test_a_cycle_through_the_package_is_found(tmp_path) -> None:
    """`from planted import Name` (not a module) leads to the package, which imports back."""
    package = plant(tmp_path, {"a.py": "from planted import B\n", "b.py": "B = 1\n"})
    (package / "__init__.py").write_text("from planted.a import *\n")
    assert find_cycle(import_graph(package)) == ["planted", "planted.a", "planted"]


def test_a_graph_without_cycle_passes(tmp_path) -> None:
    package = plant(tmp_path, {"a.py": "from . import b\n", "b.py": "import json\n"})
    (package / "__init__.py").write_text("from .a import b\n")
    assert import_graph(package)["planted.a"] == {"planted.b"}
    assert import_graph(package)["planted"] == {"planted.a"}
    assert find_cycle(import_graph(package)) is None
