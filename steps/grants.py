"""Getting codes and grants with as few approvals as possible.

`Authorizer` runs one authorization (through the consent driver) and exchanges the code.
`GrantCache` shares grants among the scenarios that only read them, keyed by application,
scopes and access type, renewing them when (test-clock) time has expired their access token
or a revoking scenario may have touched them. Scenarios that consume or revoke get grants of
their own from the Authorizer."""

from __future__ import annotations

from dataclasses import dataclass

from steps.clock import Clock
from steps.consent.base import ConsentDriver, RedirectResult
from steps.observations import Observations
from steps.outcomes import CASCADE, NotChecked
from steps.profile import Client, Profile
from steps.service import Service, TokenSet, json_body

RENEW_MARGIN = 60.0


class SetupFailure(NotChecked):
    """A scenario could not get the code or grant it starts from."""


@dataclass(frozen=True)
class IssuedCode:
    """A code and the redirect URI it was issued for."""

    client: Client
    code: str
    redirect_uri: str


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
        self.service.http.secrets.add(outcome.code)
        return IssuedCode(client, outcome.code, client.redirect_uri)

    def grant(self, role: str, scope: str, *, offline: bool = False) -> TokenSet:
        """A fresh grant: a code exchanged for tokens."""
        issued = self.code(role, scope, offline=offline)
        response = self.service.exchange(issued.client, issued.code, issued.redirect_uri)
        body = json_body(response)
        if response.status_code != 200 or not body or "access_token" not in body:
            raise SetupFailure(f"code exchange for {role} failed: {response.status_code}")
        self.observations.token_response(body)
        self.service.http.secrets.add(body.get("access_token"), body.get("refresh_token"))
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
    """Grants shared by read-only scenarios, one per (application, scopes, access type)."""

    def __init__(self, authorizer: Authorizer, service: Service, clock: Clock) -> None:
        self.authorizer = authorizer
        self.service = service
        self.clock = clock
        self._grants: dict[tuple[str, str, bool], TokenSet] = {}
        self._unchecked: set[tuple[str, str, bool]] = set()

    def get(self, role: str, scope: str, *, offline: bool = False) -> TokenSet:
        """The shared grant, renewed when it may no longer work."""
        key = (role, " ".join(sorted(scope.split())), offline)
        tokens = self._grants.get(key)
        if tokens is None or not self._usable(key, tokens):
            stale = tokens
            tokens = CASCADE.run(  # a shared grant that failed once is not tried again
                f"the shared grant {key}",
                lambda: self._renew(stale) or self.authorizer.grant(role, scope, offline=offline),
            )
            self._grants[key] = tokens
        return tokens

    def suspect(self) -> None:
        """A scenario revoked something: check shared grants before handing them out again."""
        self._unchecked = set(self._grants)

    def _usable(self, key: tuple[str, str, bool], tokens: TokenSet) -> bool:
        expires_in = tokens.response.get("expires_in")
        lifetime = expires_in if isinstance(expires_in, int) else 3600
        if self.clock.now() - tokens.issued_at > lifetime - RENEW_MARGIN:
            return False
        if key in self._unchecked:
            self._unchecked.discard(key)
            return self.service.userinfo(tokens.access_token).status_code not in (400, 401)
        return True

    def _renew(self, tokens: TokenSet | None) -> TokenSet | None:
        if tokens is None or not tokens.refresh_token:
            return None
        response = self.service.refresh(tokens.client, tokens.refresh_token)
        body = json_body(response)
        if response.status_code != 200 or not body or "access_token" not in body:
            return None
        self.service.http.secrets.add(body["access_token"])
        tokens.renewed(body, self.clock.now())
        return tokens
