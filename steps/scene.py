"""What a scenario has built so far: the application in play, its authorization request, where
the browser ended, the code, the tokens and the last response. One per scenario."""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx

from steps.consent.base import Outcome, RedirectResult
from steps.profile import Client
from steps.service import TokenSet


@dataclass
class AuthRequest:
    """An authorization request being put together by the scenario's steps."""

    client: Client
    params: dict[str, str | None]
    verifier: str | None = None
    challenge: str | None = None

    @property
    def redirect_uri(self) -> str | None:
        """The redirect URI the request carries."""
        return self.params.get("redirect_uri")


@dataclass
class Scene:
    """Per-scenario state shared by the step modules."""

    client: Client | None = None
    other: Client | None = None
    request: AuthRequest | None = None
    outcome: Outcome | None = None
    code: str | None = None
    code_redirect_uri: str | None = None
    verifier: str | None = None
    challenge: str | None = None
    tokens: TokenSet | None = None
    first_tokens: TokenSet | None = None
    sent_refresh_token: str | None = None
    #: The refresh token the scenario's first refresh sent (a rotating server replaces it).
    first_refresh_token: str | None = None
    #: Which of the grant's tokens the application revoked ("access", "refresh"), in order.
    revoked: list[str] = field(default_factory=list)
    #: Why the user's revocation on the website may not have reached the grant.
    website_revocation_note: str = ""
    response: httpx.Response | None = None
    transport_error: Exception | None = None
    responses: list[httpx.Response] = field(default_factory=list)

    def app(self) -> Client:
        """The application in play (a step before must have chosen one)."""
        assert self.client is not None, "no application chosen by an earlier step"
        return self.client

    def last(self) -> httpx.Response:
        """The last response a step kept."""
        assert self.response is not None, "no request was made by an earlier step"
        return self.response

    def keep(self, response: httpx.Response) -> httpx.Response:
        """Remember a response as the scenario's latest."""
        self.response = response
        self.responses.append(response)
        return response

    def redirect(self) -> RedirectResult:
        """The redirect the browser ended on; fails the step clearly when it did not."""
        assert isinstance(self.outcome, RedirectResult), (
            f"the browser was not sent back to the application; it ended on {self.outcome}"
        )
        return self.outcome
