"""Calls to the token, revocation and user-information endpoints.

Requests are built and answers classified here, with no I/O, so the sync and async paths
share every rule: ``invalid_grant`` means log in again, ``invalid_client`` is a configuration
error, network errors and 5xx are temporary and leave stored tokens alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from client_kit import _logs
from client_kit._errors import (
    ClientRejected,
    KitError,
    LoginRequired,
    ProtocolError,
    RefreshTokenRejected,
    TemporaryFailure,
    UnexpectedAnswer,
)
from client_kit._safe_text import WORD_LIMIT, clean
from client_kit._tokens import TokenSet
from client_kit._transfer import PAGE_LIMIT, TOKEN_LIMIT, USERINFO_LIMIT, Bounds
from client_kit.profiles import Profile, require_https

if TYPE_CHECKING:
    import httpx

log = _logs.get_logger("client_kit.endpoints")

#: a JSON object as the service sends it (user information, an error answer)
JsonObject = dict[str, object]


@dataclass(frozen=True)
class ClientCredentials:
    """The registered application's id and (possibly embedded) secret, as the token
    endpoint is sent them."""

    client_id: str
    client_secret: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        _logs.register(self.client_secret)

    def as_form(self) -> dict[str, str]:
        data = {"client_id": self.client_id}
        if self.client_secret is not None:
            data["client_secret"] = self.client_secret
        return data


class Endpoints:
    """Builds requests for one profile and client; classifies the answers.

    With ``broker_url`` (broker mode) the code exchange, refresh and revocation go to the
    application's own back end (``{broker_url}/token``, ``{broker_url}/revoke``), which adds
    the client secret and forwards them to the service: see :mod:`client_kit.broker`. The
    broker's certificate is checked against ``broker_ca_bundle`` when given (else against
    what the profile trusts).
    """

    def __init__(
        self,
        profile: Profile,
        credentials: ClientCredentials,
        broker_url: str | None = None,
        broker_ca_bundle: str | None = None,
    ) -> None:
        self.profile = profile
        self.credentials = credentials
        self.broker_url = broker_url.rstrip("/") if broker_url else None
        if self.broker_url:
            require_https(self.broker_url, "the broker URL")
        #: the connection settings for the broker (its own CA bundle, if given)
        self.broker_profile = (
            profile.replace(ca_bundle=broker_ca_bundle) if broker_ca_bundle else profile
        )

    # -- who answers a request -----------------------------------------------------------

    def is_broker(self, url: object) -> bool:
        return bool(self.broker_url) and str(url).startswith(f"{self.broker_url}/")

    def connection(self, url: object) -> Profile:
        """The profile whose connection settings (CA bundle, proxy) reach ``url``."""
        return self.broker_profile if self.is_broker(url) else self.profile

    def bounds(self, request: httpx.Request) -> Bounds:
        """How long ``request`` may take and how large its answer may be."""
        url = str(request.url).split("?")[0]
        party = "the broker" if self.is_broker(url) else "the service"
        deadline = self.connection(url).deadline
        if url == self.profile.userinfo_url:
            return Bounds(deadline, USERINFO_LIMIT, party)
        if url in (self.token_url, self.revoke_url):
            return Bounds(deadline, TOKEN_LIMIT, party)
        return Bounds(deadline, PAGE_LIMIT, party, truncate=True)

    @property
    def token_url(self) -> str:
        return f"{self.broker_url}/token" if self.broker_url else self.profile.token_url

    @property
    def revoke_url(self) -> str:
        return f"{self.broker_url}/revoke" if self.broker_url else self.profile.revoke_url

    # -- requests ----------------------------------------------------------------------

    def _form(self, url: str, data: Mapping[str, str]) -> httpx.Request:
        import httpx

        require_https(url, "the token endpoint")
        return httpx.Request(
            "POST",
            url,
            data=dict(data),
            headers={"User-Agent": self.profile.user_agent, "Accept": "application/json"},
        )

    def exchange_request(
        self, code: str, redirect_uri: str, code_verifier: str | None
    ) -> httpx.Request:
        _logs.register(code, code_verifier)
        data = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            **self.credentials.as_form(),
        }
        if code_verifier:
            data["code_verifier"] = code_verifier
        return self._form(self.token_url, data)

    def refresh_request(self, refresh_token: str) -> httpx.Request:
        _logs.register(refresh_token)
        data = {
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            **self.credentials.as_form(),
        }
        return self._form(self.token_url, data)

    def revoke_request(self, token: str) -> httpx.Request:
        _logs.register(token)
        return self._form(self.revoke_url, {"token": token, **self.credentials.as_form()})

    def userinfo_request(self) -> httpx.Request:
        """Without a token: send it with ``auth=session.auth()`` (a :class:`BearerAuth`),
        which adds the token and refreshes it once if the service refuses it."""
        import httpx

        require_https(self.profile.userinfo_url, "the user-information endpoint")
        return httpx.Request(
            "GET",
            self.profile.userinfo_url,
            headers={"Accept": "application/json", "User-Agent": self.profile.user_agent},
        )

    # -- answers -----------------------------------------------------------------------

    def token_response(
        self,
        response: httpx.Response,
        *,
        previous: TokenSet | None = None,
        requested_scopes: tuple[str, ...] = (),
        refreshing: bool = False,
    ) -> TokenSet:
        """A new token set, or the exception that says what to do."""
        if response.status_code == 200:
            data = _json(response)
            tokens = TokenSet.from_response(
                data, previous=previous, requested_scopes=requested_scopes
            )
            _logs.register(tokens.access_token, tokens.refresh_token)
            return tokens
        raise classify_error(
            response,
            refreshing=refreshing,
            revoked_refresh_errors=self.profile.revoked_refresh_errors,
        )

    def revoke_response(self, response: httpx.Response) -> None:
        if response.status_code != 200:
            raise classify_error(response)

    def userinfo_response(self, response: httpx.Response) -> JsonObject:
        if response.status_code == 200:
            return _json(response)
        if response.status_code in self.profile.unauthorized_statuses:
            raise LoginRequired(
                f"the service did not accept the access token (HTTP {response.status_code}); "
                "refresh it or log in again"
            )
        raise classify_error(response)


def _json(response: httpx.Response) -> JsonObject:
    try:
        data = response.json()
    except ValueError as exc:
        raise ProtocolError(
            f"{response.request.url.path} answered HTTP {response.status_code} without JSON"
        ) from exc
    if not isinstance(data, dict):
        raise ProtocolError(f"{response.request.url.path} answered JSON that is not an object")
    return data


def classify_error(
    response: httpx.Response,
    *,
    refreshing: bool = False,
    revoked_refresh_errors: tuple[tuple[str, str], ...] = (),
) -> KitError:
    """Turn a failed answer into the exception a caller can act on.

    ``revoked_refresh_errors`` (from the profile) name the other answers by which a service
    says that a refresh token was revoked or already used: MetaBrainz answers
    ``invalid_request`` "... already revoked" where the spec has ``invalid_grant``. Only an
    answer matching both the error and its description counts: any other
    ``invalid_request`` is still a protocol error.
    """
    status = response.status_code
    path = response.request.url.path
    if status >= 500 or status in (408, 429):
        return TemporaryFailure(
            f"the service is unavailable (HTTP {status} from {path}); tokens are kept, "
            "try again later"
        )
    error, description = "", ""
    try:
        data = response.json()
        if isinstance(data, dict):
            error = clean(data.get("error") or "", WORD_LIMIT)
            description = clean(data.get("error_description") or "")
    except ValueError:
        pass
    detail = f" ({description})" if description else ""
    if error == "invalid_client" or (status == 401 and not error):
        return ClientRejected(f"the service rejected the client id or secret{detail}")
    if error == "invalid_grant" or (
        refreshing and _matches(error, description, revoked_refresh_errors)
    ):
        if refreshing:
            return RefreshTokenRejected(
                f"the refresh token is no longer valid{detail}; log in again"
            )
        return LoginRequired(f"the authorization code was not accepted{detail}; log in again")
    return UnexpectedAnswer(
        f"{path} answered HTTP {status} {error or 'without an error code'}{detail}"
    )


def _matches(error: str, description: str, known: tuple[tuple[str, str], ...]) -> bool:
    words = description.lower()
    return any(error == name and fragment.lower() in words for name, fragment in known)
