"""The exit codes of ``mb-oauth``: the one table, and the one place where a kit exception
becomes a number.

The library's exceptions carry no exit code (what a program does about one is its own
business); ``mb-oauth`` maps their types to the codes of :data:`TABLE`. The most specific
listed type wins: ``UnauthorizedClient`` is a configuration problem, although as an
``AuthorizationError`` it also ended the login. ``mb-oauth --help`` and the kit's page
(docs/client-kit.md) show the table as :func:`help_text` and :func:`markdown` write it
(tests/kit/test_exit_codes.py holds the page to it).
"""

from __future__ import annotations

from dataclasses import dataclass

from client_kit import _errors

EXIT_OK = 0
EXIT_GENERIC = 1
EXIT_USAGE = 2
EXIT_LOGIN_REQUIRED = 3
EXIT_CONFIGURATION = 4
EXIT_TEMPORARY = 5
EXIT_CANCELLED = 6
EXIT_STORAGE = 7


@dataclass(frozen=True)
class ExitCode:
    """One exit code: what it means to the person who ran the command, and the exception
    types that end a command with it."""

    number: int
    meaning: str
    raised_by: tuple[type[_errors.KitError], ...] = ()


TABLE = (
    ExitCode(EXIT_OK, "ok"),
    ExitCode(EXIT_GENERIC, "other error", (_errors.KitError,)),
    ExitCode(EXIT_USAGE, "usage error (bad option or argument)"),
    ExitCode(
        EXIT_LOGIN_REQUIRED,
        "not logged in, or the login no longer works: run `mb-oauth login`",
        (_errors.LoginRequired,),
    ),
    ExitCode(
        EXIT_CONFIGURATION,
        "configuration error (client rejected, unknown scope, plain HTTP, certificate, CA file)",
        (_errors.ConfigurationError, _errors.UnauthorizedClient),
    ),
    ExitCode(
        EXIT_TEMPORARY,
        "temporary failure (network, timeout, 5xx, loopback port busy): try again later",
        (_errors.TemporaryFailure, _errors.ServerUnavailable),
    ),
    ExitCode(EXIT_CANCELLED, "login cancelled, denied or timed out", (_errors.LoginCancelled,)),
    ExitCode(
        EXIT_STORAGE,
        "token storage unavailable (no keyring, a locked keyring, an unsafe file or folder)",
        (_errors.StorageError,),
    ),
)

#: exception type -> exit code; an exception takes the code of its nearest listed class
EXIT_CODES: dict[type[_errors.KitError], int] = {
    cls: row.number for row in TABLE for cls in row.raised_by
}


def exit_code(exc: _errors.KitError) -> int:
    """The code ``mb-oauth`` exits with after ``exc``."""
    return next(EXIT_CODES[cls] for cls in type(exc).__mro__ if cls in EXIT_CODES)


def help_text() -> str:
    """The table as ``mb-oauth --help`` shows it (click keeps a ``\\b`` paragraph as is)."""
    return "\b\nExit codes:\n" + "\n".join(f"  {row.number}  {row.meaning}" for row in TABLE)


def markdown() -> str:
    """The table as the kit's page shows it."""
    rows = [f"| {row.number} | {row.meaning} |" for row in TABLE]
    return "\n".join(["| exit code | meaning |", "|---|---|", *rows])
