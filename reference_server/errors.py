"""The server's errors, free of any web framework (as oauthlib's are).

Rules raise them; each is answered in one place. The endpoints clients call (oauth/) turn an
`OAuthError` into the JSON of RFC 6749 5.2 and a `BearerError` into the challenge of RFC 6750
3 (oauth/replies.py); the application renders a `PageError` as the service's own error page
and a `RedirectError` as a redirect to the client (RFC 6749 4.1.2.1), registered once by
`app.create_app` (web/errorpages.py).
"""

from __future__ import annotations


class OAuthError(Exception):
    """An error the client is told about as `error` and `error_description`."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status
        self.headers: dict[str, str] = {}


class TooManyGuesses(OAuthError):
    """Too many failed guesses from this address for this name: wait `retry_after` seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            "invalid_client",
            f"too many failed attempts from this address; retry in {retry_after} s",
            status=429,
        )
        self.retry_after = retry_after
        self.headers = {"Retry-After": str(retry_after)}


def invalid_request(description: str) -> OAuthError:
    return OAuthError("invalid_request", description)


def invalid_client(description: str = "client authentication failed") -> OAuthError:
    return OAuthError("invalid_client", description, status=401)


def invalid_grant(description: str) -> OAuthError:
    """An unknown, used, expired or foreign code or refresh token."""
    return OAuthError("invalid_grant", description)  # TOKEN-ERR-INVALID-GRANT: 400


class BearerError(Exception):
    """A protected resource refuses the request; no `error` when no token came (RFC 6750 3.1)."""

    def __init__(
        self,
        status: int,
        error: str | None = None,
        description: str = "",
        scope: str | None = None,
    ) -> None:
        super().__init__(description)
        self.status = status
        self.error = error
        self.description = description
        self.scope = scope


class SignInRequired(Exception):
    """A page for logged-in users asked for without a session: log in, then come back."""

    def __init__(self, return_to: str) -> None:
        super().__init__(return_to)
        self.return_to = return_to


class PageError(Exception):
    """A problem shown to the user on the service's own page (never redirected)."""

    def __init__(self, message: str, status: int = 400, title: str = "Error") -> None:
        super().__init__(message)
        self.status = status
        self.title = title


class RedirectError(Exception):
    """A problem reported to the client at its (verified) redirect URI, with its `state`."""

    def __init__(self, error: str, description: str, redirect_uri: str, state: str | None) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.redirect_uri = redirect_uri
        self.state = state


class ParameterError(ValueError):
    """The request's parameters cannot be read; the message says why.

    Each endpoint family says it in its own terms (an `OAuthError`, a `BearerError`, a
    `PageError`) where it reads its parameters.
    """

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status
