"""The application a scenario plays ("the application exchanges the code"): one per scenario
(fixture `application`), bundling what its steps need (the target's endpoints, the consent
driver, the clock, the observations) with what the scenario has seen (`Scene`) and the
refresh tokens it sent."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from steps.authorization import code_of
from steps.clock import Clock
from steps.consent.base import ConsentDriver, Outcome, RedirectResult
from steps.http import HttpLayer
from steps.observations import Observations
from steps.outcomes import NotChecked
from steps.profile import Client, Profile
from steps.scene import AuthRequest, IssuedCode, Scene, TokenHistory
from steps.service import Service, TokenSet
from steps.token import refreshed, took_tokens

#: Authorization errors that say nothing about the request's PKCE or redirect parameters: a
#: scenario refused for one of these never reached the token endpoint it is about.
UNRELATED_REFUSALS = ("invalid_scope", "access_denied", "server_error", "temporarily_unavailable")


@dataclass
class Application:
    """The registered application in play, as the scenario's steps drive it."""

    scene: Scene
    profile: Profile
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
    def client(self) -> Client:
        """The application's registration (a step before must have chosen one)."""
        return self.scene.app()

    def keep(self, response: httpx.Response) -> httpx.Response:
        """Remember an answer as the scenario's latest."""
        return self.scene.keep(response)

    def hold(self, tokens: TokenSet) -> TokenSet:
        """Take a grant issued outside the scenario's own requests; its code exchange goes
        into the evidence (recorded once: a fresh grant's exchange is there already)."""
        self.scene.tokens, self.scene.client = tokens, tokens.client
        if tokens.exchange is not None:
            self.http.record(tokens.exchange)
        return tokens

    # --- the authorization page ------------------------------------------------------------

    def visit(self, request: AuthRequest, act: Callable[[str], Outcome]) -> IssuedCode | None:
        """Send the user to the request's URL; `act` is what the driver does there."""
        outcome = act(self.service.authorize_url(request.params))
        self.scene.outcome = outcome
        return code_of(request, outcome, self.observations)

    # --- the token endpoint ----------------------------------------------------------------

    def issued(self, code: IssuedCode | None) -> IssuedCode:
        """The code to exchange; without one, why (a refusal first means unchecked)."""
        if code is None:
            outcome = self.scene.outcome
            if isinstance(outcome, RedirectResult) and outcome.error in UNRELATED_REFUSALS:
                raise NotChecked(f"the authorization was refused first: error={outcome.error}")
            raise AssertionError(f"no authorization code from an earlier step: {outcome}")
        return code

    def exchange(self, code: IssuedCode | None, /, **overrides: str | None) -> httpx.Response:
        """Exchange the code (fields overridden as given); keep the tokens it issues."""
        issued = self.issued(code)
        self.scene.client = issued.client
        response = self.keep(
            self.service.exchange(issued.client, issued.code, issued.redirect_uri, overrides)
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
        """The grant's refresh token (the first one sent is remembered)."""
        tokens = self.scene.grant()
        assert tokens.refresh_token, "the grant has no refresh token"
        history = self.history
        history.first_refresh_token = history.first_refresh_token or tokens.refresh_token
        return tokens.refresh_token
