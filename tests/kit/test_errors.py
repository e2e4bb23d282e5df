"""Errors carry meaning, the CLI carries the advice and the exit codes.

The library's exceptions speak the library's language and hold typed facts; only
``mb-oauth`` turns them into options, variables and commands (``client_kit._cli_hints``) and
into exit codes (``client_kit._cli_exit``, the one place that knows them).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from client_kit import _cli_exit, _errors
from client_kit._cli_exit import exit_code
from client_kit._cli_hints import SETTING_HINTS, explain, hint_for

KIT = Path(__file__).resolve().parents[2] / "client_kit"
#: the modules that speak the command line's language
CLI_MODULES = {
    "_cli.py",
    "_cli_context.py",
    "_cli_exit.py",
    "_cli_hints.py",
    "_cli_output.py",
    "_config.py",
}
#: environment variables the library itself reads (not advice about the command line)
LIBRARY_VARIABLES = {"MB_OAUTH_KEYRING_TIMEOUT", "MB_OAUTH_NO_BROWSER", "MB_OAUTH_MASK_KEY"}
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]+|`mb-oauth [a-z]+`|MB_OAUTH_[A-Z_]+")


def flags_in_messages(path: Path) -> list[str]:
    """Command-line words in the string literals of ``path`` (docstrings excluded)."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                continue
            found += [m for m in FLAG.findall(node.value) if m not in LIBRARY_VARIABLES]
    return found


@pytest.mark.parametrize(
    "path", sorted(p for p in KIT.glob("*.py") if p.name not in CLI_MODULES), ids=lambda p: p.name
)
def test_library_messages_name_no_command_line_option(path: Path) -> None:
    assert flags_in_messages(path) == []


def test_the_scan_finds_what_it_looks_for(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text('"""--docstring is fine"""\nX = "pass --client-id or run `mb-oauth login`"\n')
    assert flags_in_messages(probe) == ["--client-id", "`mb-oauth login`"]


@pytest.mark.parametrize("setting", sorted(SETTING_HINTS))
def test_a_configuration_error_is_advised_by_its_setting(setting: str) -> None:
    exc = _errors.ConfigurationError("something is wrong", setting=setting)  # type: ignore[arg-type]
    assert exc.setting == setting and exit_code(exc) == _cli_exit.EXIT_CONFIGURATION
    assert explain(exc) == f"something is wrong; {SETTING_HINTS[setting]}"  # type: ignore[index]


@pytest.mark.parametrize(
    ("exc", "words", "code"),
    [
        (_errors.NotLoggedIn("not logged in"), "run `mb-oauth login`", 3),
        (_errors.RefreshTokenRejected("gone; log in again"), "run `mb-oauth login`", 3),
        (_errors.ClientRejected("rejected"), "MB_OAUTH_CLIENT_SECRET", 4),
        (_errors.ClientRejected("unknown", setting="client_id"), "--service", 4),
        (_errors.CertificateRejected("bad certificate"), "--ca-bundle", 4),
        (_errors.InvalidScope("invalid_scope"), "check --scope", 6),
        (_errors.LoginTimeout("late", seconds=3), "use --oob", 6),
        (_errors.PortUnavailable("busy", ports=(8976,)), "--port", 5),
        (_errors.NoKeyringBackend("none"), "--store file", 7),
        (
            _errors.KeyringTimeout("hung", operation="save", seconds=2),
            "MB_OAUTH_KEYRING_TIMEOUT",
            7,
        ),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else None,
)
def test_each_error_maps_to_its_exit_code_and_gets_its_advice(exc, words, code) -> None:
    assert exit_code(exc) == code
    assert str(exc) in explain(exc) and words in explain(exc)
    assert words not in str(exc)


def test_library_exceptions_carry_no_exit_code() -> None:
    classes = [
        c for c in vars(_errors).values() if isinstance(c, type) and issubclass(c, Exception)
    ]
    assert _errors.KitError in classes and _errors.KeyringTimeout in classes
    assert [c.__name__ for c in classes if hasattr(c, "exit_code")] == []
    assert [name for name in vars(_errors) if name.startswith("EXIT_")] == []


def exit_code_words(path: Path) -> list[str]:
    """Names and attributes of ``path`` that speak of exit codes (``exit_code``, ``EXIT_*``)."""
    words = []
    for node in ast.walk(ast.parse(path.read_text())):
        word = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if isinstance(word, str) and (word == "exit_code" or word.startswith("EXIT_")):
            words.append(word)
    return words


def test_only_the_command_line_knows_exit_codes() -> None:
    library = sorted(p for p in KIT.glob("*.py") if not p.name.startswith("_cli"))
    assert library and {p.name: exit_code_words(p) for p in library if exit_code_words(p)} == {}
    assert exit_code_words(KIT / "_cli_exit.py")  # the scan sees them where they are


def test_errors_without_advice_print_as_they_are() -> None:
    for exc in (
        _errors.TemporaryFailure("later"),
        _errors.ProtocolError("odd"),
        _errors.KitError(),
    ):
        assert hint_for(exc) is None and explain(exc) == str(exc)


def test_typed_facts() -> None:
    timeout = _errors.KeyringTimeout("hung", operation="delete", seconds=1.5)
    assert isinstance(timeout, _errors.KeyringFailure) and isinstance(timeout, _errors.StorageError)
    assert (timeout.operation, timeout.seconds) == ("delete", 1.5)
    late = _errors.LoginTimeout("late", seconds=30, oob=True)
    assert (late.seconds, late.oob) == (30, True) and "--oob" not in explain(late)
    assert _errors.PortUnavailable("busy").ports == ()
    assert hint_for(_errors.PortUnavailable("busy")) is None  # a free port: nothing to pass


def test_the_no_keyring_message_names_the_cli_way_to_a_file_store() -> None:
    from client_kit._keyring_store import NO_KEYRING_HELP

    message = explain(_errors.NoKeyringBackend(NO_KEYRING_HELP))
    assert "FileStore" not in message  # a library term, meaningless on the command line
    assert "--store file" in message and 'store = "file"' in message
