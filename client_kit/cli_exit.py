"""The exit codes of ``mb-oauth``: the one place where a kit exception becomes a number.

The library's exceptions carry no exit code (what a program does about one is its own
business); ``mb-oauth`` maps their types to the codes ``mb-oauth --help`` documents. The
most specific type in :data:`EXIT_CODES` wins: ``UnauthorizedClient`` is a configuration
problem, although as an ``AuthorizationError`` it also ended the login. The other codes
are 0 (success) and 2 (a usage error, click's own).
"""

from __future__ import annotations

from client_kit import errors

EXIT_GENERIC = 1
EXIT_LOGIN_REQUIRED = 3
EXIT_CONFIGURATION = 4
EXIT_TEMPORARY = 5
EXIT_CANCELLED = 6
EXIT_STORAGE = 7

#: exception type -> exit code; an exception takes the code of its nearest listed class
EXIT_CODES: dict[type[errors.KitError], int] = {
    errors.KitError: EXIT_GENERIC,
    errors.LoginRequired: EXIT_LOGIN_REQUIRED,
    errors.ConfigurationError: EXIT_CONFIGURATION,
    errors.UnauthorizedClient: EXIT_CONFIGURATION,
    errors.TemporaryFailure: EXIT_TEMPORARY,
    errors.ServerUnavailable: EXIT_TEMPORARY,
    errors.LoginCancelled: EXIT_CANCELLED,
    errors.StorageError: EXIT_STORAGE,
}


def exit_code(exc: errors.KitError) -> int:
    """The code ``mb-oauth`` exits with after ``exc``."""
    return next(EXIT_CODES[cls] for cls in type(exc).__mro__ if cls in EXIT_CODES)
