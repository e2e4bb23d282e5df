"""The server's imports follow the layering written in reference_server/__init__.py, and
every request takes the one pipeline Starlette gives it.

Imports are read with `ast` (nothing is imported), so a violation anywhere, even inside a
function or under TYPE_CHECKING, is found. The rules between packages and the file-size rule
are in tests/test_architecture.py.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest
import starlette

import reference_server

PACKAGE = "reference_server"
ROOT = Path(reference_server.__file__).parent
SEPARATE = ("oauth", "web")  # side by side: neither imports the other


@dataclass(frozen=True)
class Layer:
    rank: int
    name: str
    web: bool  # may import Starlette
    members: tuple[str, ...]  # module names; "pkg/" for a whole package


def layers() -> list[Layer]:
    """The table of the package docstring, between its header line and the blank line."""
    doc = reference_server.__doc__ or ""
    lines = doc.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split() == ["layer", "web", "modules"])
    table: list[Layer] = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        name, web, *members = line.split()
        table.append(Layer(len(table), name, web == "web", tuple(members)))
    return table


def module_names() -> list[str]:
    """Every module of the package, dotted ("oauth.token"); a package's __init__ as its name."""
    names = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if parts:
            names.append(".".join(parts))
    return names


def layer_of(module: str, table: list[Layer]) -> Layer:
    top = module.split(".")[0]
    for layer in table:
        if module in layer.members or f"{top}/" in layer.members:
            return layer
    raise LookupError(f"{module} is in no layer of reference_server/__init__.py")


def source_of(module: str) -> Path:
    path = ROOT.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def imports_of(module: str, source: str | None = None) -> list[tuple[int, str]]:
    """(line, imported name) for every import; package-relative names made absolute."""
    path = source_of(module)
    package = module.split(".")[:-1] if path.name != "__init__.py" else module.split(".")
    found: list[tuple[int, str]] = []
    text = path.read_text() if source is None else source
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:
                parent = [PACKAGE, *package][: len(package) + 2 - node.level]
                base = ".".join(parent + ([node.module] if node.module else []))
            found.append((node.lineno, base))
            found.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
    return found


def internal(name: str, known: set[str]) -> str | None:
    """The module of the package that an imported name refers to, if any."""
    if not name.startswith(PACKAGE + "."):
        return None
    parts = name.split(".")[1:]
    while parts and ".".join(parts) not in known:
        parts.pop()
    return ".".join(parts) or None


def violations(
    module: str, imported: list[tuple[int, str]], table: list[Layer], known: set[str]
) -> list[str]:
    here = layer_of(module, table)
    problems = []
    for line, name in imported:
        where = f"{module}:{line} imports {name}"
        if name.split(".")[0] == "starlette" and not here.web:
            problems.append(f"{where}: Starlette outside the web-facing layers")
        target = internal(name, known)
        if target is None or target == module:
            continue
        there = layer_of(target, table)
        if there.rank > here.rank:
            problems.append(f"{where}: layer {here.name} imports layer {there.name} above it")
        mine, theirs = module.split(".")[0], target.split(".")[0]
        if {mine, theirs} == set(SEPARATE):
            problems.append(f"{where}: oauth/ and web/ import each other")
    return problems


def test_the_layering_table_names_every_module_once() -> None:
    table = layers()
    assert [layer.name for layer in table][:3] == ["rules", "wire", "storage"]  # it was read
    for module in module_names():
        top = module.split(".")[0]
        homes = [
            layer.name for layer in table if module in layer.members or f"{top}/" in layer.members
        ]
        assert len(homes) == 1, f"{module}: {homes}"


def test_no_module_imports_a_layer_above_it_nor_across_oauth_and_web() -> None:
    table = layers()
    known = set(module_names())
    problems = [
        p for module in sorted(known) for p in violations(module, imports_of(module), table, known)
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        (
            "grants.refresh_token",
            "from ..web import pages\n",
            "layer domain imports layer pages",
        ),
        ("oauth.token", "from starlette.requests import Request\n", "Starlette outside"),
        ("oauth.userinfo", "from ..endpoints import respond\n", "layer core imports layer http"),
        ("answers", "from .state import ServerState\n", "layer wire imports layer state"),
        ("groupcommit", "from .grants import base\n", "layer storage imports layer domain"),
        ("grants", "from ..app import create_app\n", "layer domain imports layer app"),
        ("oauth.token", "from ..web.html import page\n", "oauth/ and web/ import each other"),
        ("state", "from starlette.requests import Request\n", "Starlette outside"),
        ("web.pages", "from reference_server import oauth\n", "oauth/ and web/ import each"),
    ],
)
def test_the_check_finds_a_violation(module: str, source: str, expected: str) -> None:
    """The check can fail: a planted import of each kind is reported."""
    known = set(module_names())
    found = violations(module, imports_of(module, source), layers(), known)
    assert any(expected in p for p in found), found


# One pipeline ------------------------------------------------------------------------------


def starlette_private_names() -> set[str]:
    """Attributes Starlette's classes keep for themselves: `self._name = ...` in its source."""
    names: set[str] = set()
    for path in Path(starlette.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                names.add(node.attr)
    return names


def pipeline_problems(module: str, source: str, private: set[str]) -> list[str]:
    """Starlette's private attributes read on another object, responses made past their
    __init__, context variables (a layer deciding for another through the request's
    context): each a second pipeline beside Starlette's."""
    problems = []
    for node in ast.walk(ast.parse(source)):
        where = f"{module}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Attribute) and node.attr in private:
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                problems.append(f"{where} reads Starlette's private attribute {node.attr}")
        if isinstance(node, ast.Call) and ast.unparse(node.func) in ("getattr", "hasattr"):
            named = node.args[1] if len(node.args) > 1 else None
            if isinstance(named, ast.Constant) and named.value in private:
                problems.append(f"{where} reads Starlette's private attribute {named.value}")
        if isinstance(node, ast.Attribute) and node.attr == "__new__":
            problems.append(f"{where} builds an object past its __init__")
        if isinstance(node, ast.ClassDef) and _skips_response_init(node):
            problems.append(f"{where} {node.name}.__init__ does not call Response's")
        if isinstance(node, ast.Name | ast.Attribute) and "ContextVar" in ast.unparse(node):
            problems.append(f"{where} uses a ContextVar")
    return problems


def _skips_response_init(node: ast.ClassDef) -> bool:
    """A Response subclass whose own __init__ never calls super().__init__."""
    if not any(ast.unparse(base).endswith("Response") for base in node.bases):
        return False
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__init__":
            return "super().__init__(" not in ast.unparse(item)
    return False


def test_every_request_takes_starlettes_pipeline() -> None:
    private = starlette_private_names()
    assert {"_body", "_stream_consumed", "_receive"} <= private  # Starlette's source was read
    problems = [
        problem
        for module in module_names()
        for problem in pipeline_problems(module, source_of(module).read_text(), private)
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(request):\n    return request._body\n", "private attribute _body"),
        ("def f(cls):\n    return cls.__new__(cls)\n", "past its __init__"),
        ("def f(request):\n    return hasattr(request, '_body')\n", "private attribute _body"),
        (
            "class Reply(Response):\n    def __init__(self):\n        self.body = b''\n",
            "Reply.__init__ does not call Response's",
        ),
        ("from contextvars import ContextVar\nflag = ContextVar('flag')\n", "ContextVar"),
    ],
)
def test_the_pipeline_check_finds_a_second_pipeline(source: str, expected: str) -> None:
    found = pipeline_problems("inbound", source, starlette_private_names())
    assert any(expected in p for p in found), found
