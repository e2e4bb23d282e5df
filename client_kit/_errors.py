"""Exceptions of the client kit, one class per thing a caller can act on.

Every exception says what happened in the kit's own terms and carries what a caller needs
to act on it as typed attributes (the ``setting`` at fault, the ``seconds`` waited, the
``ports`` tried). Nothing here knows the command line: ``mb-oauth`` maps the types to its
exit codes (:mod:`client_kit._cli_exit`) and adds its advice in terms of options and
variables (:mod:`client_kit._cli_hints`). Catch :class:`KitError` to catch them all.
"""

from __future__ import annotations

from typing import Literal

from client_kit._safe_text import WORD_LIMIT, clean

#: the settings a :class:`ConfigurationError` can blame (the names of the config file)
Setting = Literal[
    "client_id",
    "client_secret",
    "service",
    "base_url",
    "ca_bundle",
    "ports",
    "scopes",
    "method",
    "redirect_uri",
    "store",
    "keyring_timeout",
    "broker_url",
    "broker_ca_bundle",
    "config_file",
]
#: what a keyring was asked to do when it failed
KeyringOperation = Literal["open", "read", "save", "delete"]


class KitError(Exception):
    """Base of every error the kit raises on purpose."""


# -- the user has to log in (again) -------------------------------------------------------


class LoginRequired(KitError):
    """No usable tokens: the user must log in (again)."""


class NotLoggedIn(LoginRequired):
    """Nothing is stored for this service, client and account."""


class RefreshTokenRejected(LoginRequired):
    """The server answered ``invalid_grant`` to a refresh: the grant is gone."""


# -- configuration ------------------------------------------------------------------------


class ConfigurationError(KitError):
    """The kit is configured wrongly; retrying will not help.

    ``setting``: the setting to fix, when one is to blame.
    """

    def __init__(self, message: str, *, setting: Setting | None = None) -> None:
        super().__init__(message)
        self.setting: Setting | None = setting


class ClientRejected(ConfigurationError):
    """The server rejected the client id or secret (``invalid_client``)."""


class CertificateRejected(ConfigurationError):
    """A TLS certificate failed verification, or the CA file is unusable: the service's
    (``setting`` ``ca_bundle``) or, in broker mode, the broker's (``broker_ca_bundle``)."""

    def __init__(self, message: str, *, setting: Setting | None = "ca_bundle") -> None:
        super().__init__(message, setting=setting)


class InsecureTransportError(ConfigurationError):
    """A token or secret would travel over plain HTTP; the kit refuses."""


# -- temporary problems -------------------------------------------------------------------


class TemporaryFailure(KitError):
    """Network error, timeout or 5xx answer: stored tokens are kept, retry later."""


class PortUnavailable(TemporaryFailure):
    """None of the loopback ports could be bound; ``ports``: those tried (empty: any)."""

    def __init__(self, message: str, *, ports: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.ports = ports


# -- the login itself ---------------------------------------------------------------------


class LoginCancelled(KitError):
    """The login did not finish: interrupted, timed out or refused."""


class LoginTimeout(LoginCancelled):
    """No callback arrived within ``seconds``; ``oob``: the user was to paste a code."""

    def __init__(self, message: str, *, seconds: float, oob: bool = False) -> None:
        super().__init__(message)
        self.seconds = seconds
        self.oob = oob


class LoginIntercepted(LoginCancelled):
    """The login was stopped because someone else may have read its address (its launcher
    page was opened twice where the platform cannot tell who opened it)."""


class AuthorizationError(LoginCancelled):
    """The authorization server redirected back with an ``error``."""

    error = "authorization_error"
    explanation = "the service refused the authorization request"

    def __init__(self, error: str | None = None, description: str | None = None) -> None:
        # both may come from anyone who can send the browser to the listener: shown clean
        self.error = clean(error, WORD_LIMIT) if error else type(self).error
        self.description = clean(description) if description else description
        text = f"{self.explanation} ({self.error})"
        if self.description:
            text += f": {self.description}"
        super().__init__(text)


class AccessDenied(AuthorizationError):
    error = "access_denied"
    explanation = "login cancelled: the authorization was not granted on the consent page"


class InvalidScope(AuthorizationError):
    error = "invalid_scope"
    explanation = "the service does not know one of the requested scopes"


class InvalidRequest(AuthorizationError):
    error = "invalid_request"
    explanation = "the service rejected the authorization request as malformed"


class UnsupportedResponseType(AuthorizationError):
    error = "unsupported_response_type"
    explanation = "the service does not support the authorization code response type"


class UnauthorizedClient(AuthorizationError):
    error = "unauthorized_client"
    explanation = "this client may not use this kind of authorization request"


class ServerUnavailable(AuthorizationError):
    error = "temporarily_unavailable"
    explanation = "the service is temporarily unavailable; try again later"


class StateMismatch(AuthorizationError):
    error = "state_mismatch"
    explanation = "the redirect did not carry the state of this login (possible forgery)"


_AUTHORIZATION_ERRORS: dict[str, type[AuthorizationError]] = {
    cls.error: cls
    for cls in (
        AccessDenied,
        InvalidScope,
        InvalidRequest,
        UnsupportedResponseType,
        UnauthorizedClient,
        ServerUnavailable,
    )
}
_AUTHORIZATION_ERRORS["server_error"] = ServerUnavailable


def authorization_error(error: str, description: str | None = None) -> AuthorizationError:
    """Map an ``error`` code of a redirect to its exception class."""
    cls = _AUTHORIZATION_ERRORS.get(error, AuthorizationError)
    return cls(error, description)


# -- the token endpoint -------------------------------------------------------------------


class ProtocolError(KitError):
    """The server answered something the kit does not understand."""


class UnexpectedAnswer(ProtocolError):
    """The service answered an error the kit does not expect there (another deployment's
    rules may explain it: a profile that says how that service answers)."""


# -- storage ------------------------------------------------------------------------------


class StorageError(KitError):
    """Tokens could not be read or written; stored tokens are left as they were."""


class KeyringFailure(StorageError):
    """The system keyring failed (locked, missing, hung); ``operation``: what it was doing.
    Another store (a file, memory) would work."""

    def __init__(self, message: str, *, operation: KeyringOperation = "open") -> None:
        super().__init__(message)
        self.operation: KeyringOperation = operation


class NoKeyringBackend(KeyringFailure):
    """No usable keyring backend exists on this system."""


class KeyringTimeout(KeyringFailure):
    """The keyring did not answer within ``seconds`` (locked behind an unanswered prompt,
    or hung)."""

    def __init__(self, message: str, *, operation: KeyringOperation, seconds: float) -> None:
        super().__init__(message, operation=operation)
        self.seconds = seconds
