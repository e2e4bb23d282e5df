"""Getting codes and grants with as few approvals as possible, without one scenario's
grant depending on another scenario.

`Authorizer` runs one authorization (through the consent driver) and exchanges the code.
`GrantCache` shares grants among the reader scenarios, keyed by application, scopes and access
type, and issues them anew when a writer scenario may have touched them or time has expired
them. Writer scenarios (refresh, revoke, replay, reuse, cross-client, clock) get grants of their
own from the Authorizer (steps/isolation.py says which are which, and why that suffices)."""

from __future__ import annotations

from steps.clock import Clock
from steps.consent.base import ConsentDriver, RedirectResult
from steps.isolation import Isolation
from steps.observations import Observations
from steps.outcomes import CASCADE, NotChecked
from steps.profile import Profile
from steps.scene import IssuedCode
from steps.service import Service, TokenSet, json_body

RENEW_MARGIN = 60.0


class SetupFailure(NotChecked):
    """A scenario could not get the code or grant it starts from."""


class Authorizer:
    """Runs authorizations through the consent driver and exchanges their codes."""

    def __init__(
        self,
        profile: Profile,
        service: Service,
        driver: ConsentDriver,
        clock: Clock,
        observations: Observations,
    ) -> None:
        self.profile = profile
        self.service = service
        self.driver = driver
        self.clock = clock
        self.observations = observations

    def code(self, role: str, scope: str, *, offline: bool = False) -> IssuedCode:
        """A fresh code; an offline web request forces the consent page (first exchange)."""
        client = self.profile.client(role)
        params = self.service.authorize_params(client, scope)
        if offline and role != "installed":
            params |= {"access_type": "offline", "approval_prompt": "force"}
        outcome = self.driver.approve(self.service.authorize_url(params))
        if not isinstance(outcome, RedirectResult) or not outcome.code:
            raise SetupFailure(f"no authorization code for {role} ({scope}): {outcome}")
        self.observations.token_format("code", outcome.code)
        return IssuedCode(client, outcome.code, client.redirect_uri)

    def grant(self, role: str, scope: str, *, offline: bool = False) -> TokenSet:
        """A fresh grant: a code exchanged for tokens."""
        issued = self.code(role, scope, offline=offline)
        response = self.service.exchange(issued.client, issued.code, issued.redirect_uri)
        body = json_body(response)
        if response.status_code != 200 or not body or "access_token" not in body:
            raise SetupFailure(f"code exchange for {role} failed: {response.status_code}")
        self.observations.token_response(body)
        return TokenSet(
            client=issued.client,
            scope=scope,
            access_token=body["access_token"],
            refresh_token=body.get("refresh_token"),
            response=body,
            content_type=response.headers.get("content-type", ""),
            issued_at=self.clock.now(),
            code=issued.code,
            exchange=self.service.http.exchanges[-1] if self.service.http.exchanges else None,
        )


class GrantCache:
    """Grants shared by reader scenarios, one per (application, scopes, access type).

    A shared grant is handed out only in the isolation epoch it was issued in and while its
    access token has time left; otherwise it is issued anew by an authorization (a refresh
    would itself change grants on a target that rotates). A writer scenario always gets a
    grant of its own. Why this keeps every verdict independent: see steps/isolation.py."""

    def __init__(
        self, authorizer: Authorizer, clock: Clock, isolation: Isolation | None = None
    ) -> None:
        self.authorizer = authorizer
        self.clock = clock
        self.isolation = isolation or Isolation()
        self._grants: dict[tuple[str, str, bool], tuple[int, TokenSet]] = {}

    def get(self, role: str, scope: str, *, offline: bool = False) -> TokenSet:
        """The shared grant (a fresh one for a writer, or when it may no longer work)."""
        if self.isolation.writer:
            return self.authorizer.grant(role, scope, offline=offline)
        key = (role, " ".join(sorted(scope.split())), offline)
        epoch = self.isolation.epoch()
        held = self._grants.get(key)
        if held is None or held[0] != epoch or self._expiring(held[1]):
            tokens = CASCADE.run(  # a shared grant that failed once is not tried again
                f"the shared grant {key}",
                lambda: self.authorizer.grant(role, scope, offline=offline),
            )
            held = (epoch, tokens)
            self._grants[key] = held
        return held[1]

    def _expiring(self, tokens: TokenSet) -> bool:
        expires_in = tokens.response.get("expires_in")
        lifetime = expires_in if isinstance(expires_in, int) else 3600
        return self.clock.now() - tokens.issued_at > lifetime - RENEW_MARGIN
