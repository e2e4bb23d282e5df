"""The project's parts import each other only downwards, and its files stay small.

The product packages stand side by side: the server (`reference_server`) and the kit
(`client_kit`) know nothing of each other nor of the suite (`steps`); the suite uses the kit,
and starts the bundled server only from its bundled target (`steps/profiles/bundled.py`,
launched lazily). `tools/` may use anything. Imports are read with `ast` (nothing is imported),
so an import inside a function or under TYPE_CHECKING counts too. The server's own layering
inside the package is checked in tests/server/test_layering.py.

And the size rule: a file over 300 lines says at the top of its module docstring why
("over 300 lines", with the reason).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("reference_server", "client_kit", "steps")
SIZED = (*PRODUCT, "tests", "tools")
MAX_LINES = 300

#: For each package, the packages it must not import; and the files allowed an exception.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "reference_server": ("client_kit", "steps", "tests", "tools"),
    "client_kit": ("reference_server", "steps", "tests", "tools"),
    "steps": ("reference_server", "tests", "tools"),
}
ALLOWED: dict[str, set[str]] = {
    "steps/profiles/bundled.py": {"reference_server"},  # the bundled target starts the server
}


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
        return f"{relative}: {count} lines, and its docstring does not say why"
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
    assert size_violation("tests/test_planted.py", silent) is not None
    assert size_violation("tests/test_planted.py", reasoned) is None
    assert size_violation("tests/test_planted.py", '"""A module."""\n' + "x = 1\n" * 299) is None
