"""The project's parts import each other only downwards, keep what outlives a request in the
places listed, and keep their files small.

The structure is written once, in docs/architecture.md, and read from its tables here
(tests/architecture_page.py): the packages and what they must not import, the suite's rooms
and the rooms each may import, what outlives a request. Imports are read with `ast` (nothing
is imported), so an import inside a function or under TYPE_CHECKING counts too. The server's
own layering is checked in tests/server/test_layering.py against the same page.

Every class name is defined once across the product packages, private ones included: a reader
who meets `Session` or `OperatorConsole` knows which package's it is.

And the size rule: a file over 300 lines says at the top of its module docstring why
("over 300 lines", with the reason).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.architecture_page import table, words

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("reference_server", "client_kit", "steps")
SIZED = (*PRODUCT, "tests", "tools")
MAX_LINES = 300


def _forbidden() -> tuple[dict[str, tuple[str, ...]], dict[str, set[str]]]:
    """For each package, the packages it must not import; and the files allowed an exception
    (the page's "except in" cell: "FILE imports PACKAGE")."""
    forbidden: dict[str, tuple[str, ...]] = {}
    allowed: dict[str, set[str]] = {}
    for row in table("Packages"):
        forbidden[row["package"]] = words(row["must not import"])
        if row["except in"]:
            file, _, package = row["except in"].partition(" imports ")
            allowed.setdefault(file, set()).add(package)
    return forbidden, allowed


FORBIDDEN, ALLOWED = _forbidden()
#: The suite's rooms (a sub-package of steps/, or a module directly in it) and the rooms each
#: may import besides itself.
STEP_ROOMS: dict[str, tuple[str, ...]] = {
    row["room"]: words(row["may import"]) for row in table("The suite's rooms")
}


def step_room(relative: str) -> str:
    """The room of a file of steps/: its sub-package, or its own name when it sits in steps/."""
    parts = relative.removesuffix(".py").split("/")
    return parts[1]


def step_imports(source: str, filename: str = "<planted>") -> list[tuple[int, str]]:
    """(line, room) of every import of a module of steps (`from steps import x` names x)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "steps":
            names = [f"steps.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        found += [(node.lineno, n.split(".")[1]) for n in names if n.startswith("steps.")]
    return found


def room_violations(relative: str, source: str) -> list[str]:
    """What a file of steps/ imports from a room its own room may not reach."""
    room = step_room(relative)
    allowed = STEP_ROOMS.get(room)
    if allowed is None:
        return [f"{relative}: steps/{room} is in no room of STEP_ROOMS"]
    return [
        f"{relative}:{line} ({room}) imports steps.{name}"
        for line, name in step_imports(source, relative)
        if name != room and name not in allowed
    ]


def top_level_imports(source: str, filename: str = "<planted>") -> list[tuple[int, str]]:
    """(line, top-level package) of every absolute import; relative ones stay in the package."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name.split(".")[0]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def import_violations(relative: str, source: str) -> list[str]:
    """What the file at `relative` (a path from the project root) imports against the rules."""
    package = relative.split("/")[0]
    allowed = ALLOWED.get(relative, set())
    return [
        f"{relative}:{line} imports {name}"
        for line, name in top_level_imports(source, relative)
        if name in FORBIDDEN.get(package, ()) and name not in allowed
    ]


def size_violation(relative: str, source: str) -> str | None:
    """A file over the limit whose module docstring does not say why."""
    count = len(source.splitlines())
    doc = ast.get_docstring(ast.parse(source, filename=relative)) or ""
    if count > MAX_LINES and f"over {MAX_LINES} lines" not in doc.lower():
        return (
            f"{relative}: {count} lines, over the limit of {MAX_LINES}: move a concept of it into "
            f"a module of its own, or say why it stays whole at the top of its module docstring "
            f'("Over {MAX_LINES} lines: <why>")'
        )
    return None


def python_files(packages: tuple[str, ...]) -> list[Path]:
    return [path for package in packages for path in sorted((ROOT / package).rglob("*.py"))]


def test_the_files_were_found() -> None:
    """The checks below read real files: each package has some."""
    for package in SIZED:
        assert python_files((package,)), package


def test_no_package_imports_one_it_must_not() -> None:
    problems = [
        problem
        for path in python_files(PRODUCT)
        for problem in import_violations(path.relative_to(ROOT).as_posix(), path.read_text())
    ]
    assert not problems, "\n".join(problems)


def test_the_suite_imports_only_from_the_rooms_below() -> None:
    problems = [
        problem
        for path in python_files(("steps",))
        for problem in room_violations(path.relative_to(ROOT).as_posix(), path.read_text())
    ]
    assert not problems, "\n".join(problems)


def test_every_room_of_the_suite_is_placed() -> None:
    """A new sub-package or module of steps/ gets its place in STEP_ROOMS (and on the
    architecture page)."""
    rooms = {path.stem for path in (ROOT / "steps").iterdir() if path.suffix == ".py"}
    rooms |= {path.name for path in (ROOT / "steps").iterdir() if (path / "__init__.py").exists()}
    assert rooms == set(STEP_ROOMS)


@pytest.mark.parametrize(
    ("relative", "source", "expected"),
    [
        (
            "steps/http/readers.py",
            "from steps.scenario.kinds import check\n",
            "imports steps.scenario",
        ),
        ("steps/scenario/scene.py", "from steps.definitions import exchange\n", "definitions"),
        (
            "steps/run/fixtures.py",
            "import steps.definitions.refresh\n",
            "imports steps.definitions",
        ),
        ("steps/plugin.py", "from steps.definitions.premises import granted\n", "definitions"),
        ("steps/reports/html.py", "from steps.run.suite import SuiteState\n", "imports steps.run"),
        ("steps/consent/form.py", "def f():\n    from steps.scenario import scene\n", "scenario"),
        ("steps/outcomes.py", "from steps import http\n", "imports steps.http"),
        ("steps/attic/old.py", "x = 1\n", "in no room"),
    ],
)
def test_a_planted_import_across_rooms_is_found(relative: str, source: str, expected: str) -> None:
    """The rooms' check can fail: an import upwards, or a room nobody placed, is reported."""
    found = room_violations(relative, source)
    assert any(expected in problem for problem in found), found


@pytest.mark.parametrize(
    ("relative", "source"),
    [
        ("steps/definitions/refresh.py", "from steps.scenario.scene import Scene\n"),
        ("steps/run/bdd_registry.py", 'STEP_MODULES = ("steps.definitions.refresh",)\n'),
        ("steps/scenario/service.py", "from steps.http.layer import HttpLayer\n"),
        ("steps/http/readers.py", "from steps.outcomes import PremiseFailed\n"),
        ("steps/runner.py", "from steps.run.pytest_run import RunOptions\n"),
    ],
)
def test_an_import_downwards_is_not_reported(relative: str, source: str) -> None:
    assert room_violations(relative, source) == []


def test_no_file_is_over_300_lines_without_a_reason_at_its_top() -> None:
    problems = [
        problem
        for path in python_files(SIZED)
        if (problem := size_violation(path.relative_to(ROOT).as_posix(), path.read_text()))
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("relative", "source", "expected"),
    [
        ("reference_server/state.py", "from client_kit import errors\n", "imports client_kit"),
        ("reference_server/app.py", "def f():\n    import steps.http.layer\n", "imports steps"),
        ("client_kit/session.py", "import reference_server.launcher\n", "reference_server"),
        ("client_kit/cli.py", "from steps.reports import redact\n", "imports steps"),
        ("steps/http/layer.py", "from reference_server.launcher import X\n", "reference_server"),
        ("steps/plugin.py", "from tests.support import world\n", "imports tests"),
    ],
)
def test_a_planted_import_is_found(relative: str, source: str, expected: str) -> None:
    """The import check can fail: each forbidden direction is reported."""
    found = import_violations(relative, source)
    assert any(expected in problem for problem in found), found


@pytest.mark.parametrize(
    ("relative", "source"),
    [
        ("steps/profiles/bundled.py", "from reference_server.launcher import ServerProcess\n"),
        ("steps/http/layer.py", "from client_kit import redaction\n"),
        ("tools/bench_lib/run.py", "import reference_server, steps, client_kit\n"),
    ],
)
def test_an_allowed_import_is_not_reported(relative: str, source: str) -> None:
    assert import_violations(relative, source) == []


def test_a_planted_long_file_is_found_unless_it_says_why() -> None:
    """The size check can fail: 301 lines without a reason are reported, with one they pass."""
    body = "x = 1\n" * MAX_LINES
    silent = '"""A module."""\n' + body
    reasoned = '"""Over 300 lines on purpose: one state machine reads best whole."""\n' + body
    found = size_violation("tests/test_planted.py", silent)
    assert found is not None and found.startswith("tests/test_planted.py: 301 lines, over")
    assert '("Over 300 lines: <why>")' in found  # what to write, and where
    assert size_violation("tests/test_planted.py", reasoned) is None
    assert size_violation("tests/test_planted.py", '"""A module."""\n' + "x = 1\n" * 299) is None


def classes_named(files: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Each class name the files (relative path, source) define, with the files defining it."""
    found: dict[str, list[str]] = {}
    for relative, source in files:
        for node in ast.walk(ast.parse(source, filename=relative)):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(relative)
    return found


def test_every_class_name_names_one_class_across_the_product() -> None:
    """A reader who meets `Session` or `Console` knows which package's it is: no class name
    of the server, the kit or the suite is defined twice, private ones included."""
    files = [(p.relative_to(ROOT).as_posix(), p.read_text()) for p in python_files(PRODUCT)]
    twice = {n: f for n, f in classes_named(files).items() if len(f) > 1}
    assert twice == {}, f"class names defined more than once (rename one of each): {twice}"


def test_a_second_class_of_a_name_is_found() -> None:
    files = [("client_kit/tokens.py", "class TokenSet: ..."), ("a/b.py", "class TokenSet: ...")]
    assert classes_named(files) == {"TokenSet": ["client_kit/tokens.py", "a/b.py"]}
