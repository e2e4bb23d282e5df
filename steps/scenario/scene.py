"""What a scenario owns: the application in play, where the browser ended, the grant it holds
(`HeldGrant`), the refresh tokens it sent and the answers to its requests. One per scenario
(fixture `scene`); what every scenario shares (the target, its endpoints, the consent driver,
the clock) is the run's `Target` (steps/scenario/target.py).

The rest of a scenario's state lives where pytest-bdd puts it: the authorization request
being built, the code and the grant of a Given are fixtures (`target_fixture`), its
revocations are kept by the revocation steps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from steps.consent.base import Outcome, RedirectResult
from steps.http.evidence import Exchange
from steps.outcomes import PremiseFailed
from steps.profiles.profile import RegisteredApp
from steps.scenario.negatives import Negative


@dataclass
class HeldGrant:
    """Tokens of one grant as the application holds them (updated in place on refresh)."""

    client: RegisteredApp
    scope: str
    access_token: str
    refresh_token: str | None
    response: dict[str, Any]
    content_type: str
    issued_at: float
    code: str | None = None
    history: list[str] = field(default_factory=list)
    #: The code exchange that issued the grant, shown again as evidence where it is reused.
    exchange: Exchange | None = field(default=None, repr=False)
    #: That exchange's answer as received, for the checks that read its format strictly.
    answer: httpx.Response | None = field(default=None, repr=False)
    #: Whether the grant is to have a refresh token (installed, or offline web access).
    offline: bool = False

    def renewed(self, body: dict[str, Any], now: float) -> None:
        """Take a refresh response's access token; remember the previous one."""
        self.history.append(self.access_token)
        self.access_token = body["access_token"]
        self.refresh_token = body.get("refresh_token") or self.refresh_token
        self.issued_at = now


@dataclass
class AuthRequest:
    """An authorization request being put together by the scenario's steps."""

    client: RegisteredApp
    params: dict[str, str | None]
    verifier: str | None = None
    challenge: str | None = None
    #: The one fault a step put in the request, in the features' words ("" for none), and the
    #: request as it was before: its positive twin (steps/scenario/negatives.py).
    fault: str = ""
    faultless: dict[str, str | None] | None = None
    #: The error a service redirects with for that fault (spec 7.1), "" where none is due.
    error: str = ""

    @property
    def redirect_uri(self) -> str | None:
        """The redirect URI the request carries."""
        return self.params.get("redirect_uri")

    def add_fault(self, words: str, error: str = "") -> None:
        """Note that the next change makes the request one the service must refuse, with
        `error` where an error redirect is due (the first fault only: the twin is the request
        as it was before it)."""
        if not self.fault:
            self.fault, self.faultless, self.error = words, dict(self.params), error


@dataclass(frozen=True)
class IssuedCode:
    """A code, the redirect URI it was issued for, and the PKCE pair of its request."""

    client: RegisteredApp
    code: str
    redirect_uri: str
    verifier: str | None = None
    challenge: str | None = None

    #: The access_type its authorization request asked for ("" when it named none).
    access_type: str = ""

    @property
    def offline(self) -> bool:
        """Whether its grant is to have a refresh token: an installed application's, or a web
        application's that asked for offline access."""
        return self.client.role == "installed" or self.access_type == "offline"

    @property
    def pkce(self) -> str:
        """The challenge of its request: "S256", "plain" or "none" (the dimension `pkce`)."""
        if self.challenge is None:
            return "none"
        return "plain" if self.challenge == self.verifier else "S256"


@dataclass
class TokenHistory:
    """The tokens of the scenario's first exchange and the refresh tokens it sent."""

    first_tokens: HeldGrant | None = None
    #: The refresh token the latest refresh sent.
    sent_refresh_token: str | None = None
    #: The refresh token the scenario's first refresh sent (a rotating server replaces it).
    first_refresh_token: str | None = None


@dataclass
class Scene:
    """Per-scenario state shared by the step modules."""

    client: RegisteredApp | None = None
    #: Whether the application's requests ask for offline access (a web application's).
    offline: bool = False
    #: Where the browser ended after the user's last visit to the authorization page.
    outcome: Outcome | None = None
    tokens: HeldGrant | None = None
    responses: list[httpx.Response] = field(default_factory=list)
    transport_error: Exception | None = None
    #: The authorization request of the user's last visit (what its code was asked for).
    request: AuthRequest | None = None
    #: The same visit again (further samples of a check, or a control without the variation).
    revisit: Callable[[AuthRequest], Outcome] | None = None
    #: The spec rule that requires the last request to be refused: the checks of the error's
    #: shape (rfc) take the refusal as their premise, and a request let through is that
    #: rule's failure, not theirs.
    refusal_rule: str = ""
    #: How the last user-information request passed the token (header, body, query, ...).
    delivery: str = ""
    #: What the user did on the authorization page last ("approves", "denies", "opens").
    act: str = ""
    #: The tokens of its first exchange and the refresh tokens it sent.
    history: TokenHistory = field(default_factory=TokenHistory)
    #: The last request the service must refuse, with its positive twin (negatives.py).
    negative: Negative | None = None
    #: Whether the scenario let time pass on the target (its clock moved).
    clock_moved: bool = False

    @property
    def response(self) -> httpx.Response | None:
        """The latest response a step kept."""
        return self.responses[-1] if self.responses else None

    def app(self) -> RegisteredApp:
        """The application in play (a step before must have chosen one)."""
        assert self.client is not None, "no application chosen by an earlier step"
        return self.client

    def last(self) -> httpx.Response:
        """The last response a step kept."""
        assert self.response is not None, "no request was made by an earlier step"
        return self.response

    def keep(self, response: httpx.Response) -> httpx.Response:
        """Remember a response as the scenario's latest."""
        self.responses.append(response)
        return response

    def grant(self) -> HeldGrant:
        """The grant's tokens (from a Given or an exchange)."""
        assert self.tokens is not None, "no grant from an earlier step"
        return self.tokens

    def require_refusal(self, refused: bool, what: str) -> None:
        """The premise of a check of an error's shape: the request was refused, as the spec
        rule that `refusal_rule` names requires (a request let through is that rule's fail)."""
        if self.refusal_rule and not refused:
            raise PremiseFailed(f"the request was let through ({what})", see=self.refusal_rule)

    def redirect(self) -> RedirectResult:
        """The redirect the browser ended on; fails the step clearly when it did not."""
        assert isinstance(self.outcome, RedirectResult), (
            f"the browser was not sent back to the application; it ended on {self.outcome}"
        )
        return self.outcome
