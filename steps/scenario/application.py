"""The application a scenario plays ("the application exchanges the code"): one per scenario
(fixture `application`), bundling what its steps need (the target's endpoints, the consent
driver, the clock, the observations) with what the scenario has seen (`Scene`) and the
refresh tokens it sent."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from steps.consent.base import ConsentDriver, Outcome
from steps.http.layer import HttpLayer
from steps.outcomes import PremiseFailed, require
from steps.profiles.profile import RegisteredApp, TargetProfile
from steps.scenario.authorization import code_of, code_rule
from steps.scenario.clock import Clock
from steps.scenario.observations import Observations
from steps.scenario.scene import AuthRequest, IssuedCode, Scene, TokenHistory
from steps.scenario.service import HeldGrant, Service
from steps.scenario.token import refreshed, took_tokens


def refresh_rule(role: str) -> str:
    """The rule that gives this kind of application a refresh token (named by a premise that
    needs one and finds none)."""
    return "TOKEN-REFRESH-INSTALLED" if role == "installed" else "TOKEN-REFRESH-OFFLINE"


@dataclass
class Application:
    """The registered application in play, as the scenario's steps drive it."""

    scene: Scene
    profile: TargetProfile
    service: Service
    consent: Callable[[], ConsentDriver]
    clock: Clock
    observations: Observations
    history: TokenHistory = field(default_factory=TokenHistory)

    @property
    def driver(self) -> ConsentDriver:
        """The consent driver (built on first use)."""
        return self.consent()

    @property
    def http(self) -> HttpLayer:
        """The recording HTTP layer."""
        return self.service.http

    @property
    def client(self) -> RegisteredApp:
        """The application's registration (a step before must have chosen one)."""
        return self.scene.app()

    def keep(self, response: httpx.Response) -> httpx.Response:
        """Remember an answer as the scenario's latest."""
        return self.scene.keep(response)

    def hold(self, tokens: HeldGrant) -> HeldGrant:
        """Take a grant issued outside the scenario's own requests; its code exchange goes
        into the evidence (recorded once: a fresh grant's exchange is there already)."""
        self.scene.tokens, self.scene.client = tokens, tokens.client
        if tokens.exchange is not None:
            self.http.record(tokens.exchange, reused=True)
        return tokens

    # --- the authorization page ------------------------------------------------------------

    def visit(self, request: AuthRequest, act: Callable[[str], Outcome]) -> IssuedCode | None:
        """Send the user to the request's URL; `act` is what the driver does there (kept, so a
        check can send the user again: further samples, or a control request)."""
        self.scene.request = request
        self.scene.revisit = lambda again: act(self.service.authorize_url(again.params))
        outcome = act(self.service.authorize_url(request.params))
        self.scene.outcome = outcome
        return code_of(request, outcome, self.observations, self.http)

    # --- the token endpoint ----------------------------------------------------------------

    def issued(self, code: IssuedCode | None) -> IssuedCode:
        """The code to exchange (a premise: whether the visit brought one is judged by the
        check that says so, and without one this scenario could not be checked)."""
        if code is None:
            request = self.scene.request
            client = request.client if request is not None else self.client
            raise PremiseFailed(
                f"no authorization code to exchange: the browser ended on {self.scene.outcome}",
                see=code_rule(request, client),
            )
        return code

    def exchange(self, code: IssuedCode | None, /, **overrides: str | None) -> httpx.Response:
        """Exchange the code (fields overridden as given); keep the tokens it issues."""
        issued = self.issued(code)
        self.scene.client = issued.client
        fields = {"code_verifier": issued.verifier} | overrides  # as its client sends it
        response = self.keep(
            self.service.exchange(issued.client, issued.code, issued.redirect_uri, fields)
        )
        took_tokens(
            self.scene,
            self.history,
            response,
            self.clock,
            self.observations,
            issued.code,
        )
        return response

    def refresh(self, token: str, overrides: dict[str, str | None] | None = None) -> None:
        """Refresh with a refresh token (fields overridden as given); renew the grant."""
        self.history.sent_refresh_token = token
        response = self.keep(self.service.refresh(self.client, token, overrides))
        refreshed(self.scene, response, self.clock)

    def refresh_token(self) -> str:
        """The grant's refresh token (the first one sent is remembered): a premise."""
        tokens = self.scene.grant()
        see = refresh_rule(tokens.client.role)
        require(tokens.refresh_token, "the grant has no refresh token", see=see)
        assert tokens.refresh_token is not None
        history = self.history
        history.first_refresh_token = history.first_refresh_token or tokens.refresh_token
        return tokens.refresh_token
