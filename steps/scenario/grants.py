"""Getting codes and grants with as few approvals as possible, without one scenario's
grant depending on another scenario.

`Authorizer` runs one authorization (through the consent driver) and exchanges the code.
`GrantCache` shares grants among the reader scenarios, keyed by application, scopes and access
type, and issues them anew when a writer scenario may have touched them or time has expired
them. Writer scenarios (refresh, revoke, replay, reuse, cross-client, clock) get grants of their
own from the Authorizer (steps/scheduling/isolation.py says which are which, and why that
suffices)."""

from __future__ import annotations

from steps.http.readers import granted
from steps.outcomes import Cascade, PremiseFailed
from steps.profiles.profile import RegisteredApp
from steps.rules.ids import RULE
from steps.scenario.authorization import code_rule, pkce_request, redirect_code
from steps.scenario.clock import Clock
from steps.scenario.scene import HeldGrant, IssuedCode
from steps.scenario.target import Target
from steps.scenario.token import held_grant
from steps.scheduling.isolation import Isolation

#: Each way a token travels: how a message names it, and the rule of the service reading it.
_WAYS = {
    "header": ("the Authorization header", RULE.USERINFO_HEADER),
    "body": ("a form body", RULE.USERINFO_POST_BODY),
    "query": ("the query string", RULE.USERINFO_QUERY),
}

RENEW_MARGIN = 60.0
#: The rule that says a code of each kind of application is exchanged for tokens.
EXCHANGE_RULES = {"installed": RULE.APP_TYPES}


class Authorizer:
    """Runs authorizations through the consent driver and exchanges their codes."""

    def __init__(self, target: Target) -> None:
        self.target = target

    def code(
        self, role: str, scope: str, *, offline: bool = False, pkce: str = "S256"
    ) -> IssuedCode:
        """A fresh code for the real client's request with the PKCE challenge `pkce` (S256,
        plain, none); an offline web request forces the consent page (first exchange). A
        premise: without a code the scenario could not be checked, naming the rule that says
        such a request leads to one."""
        target = self.target
        client = target.profile.client(role)
        request = pkce_request(target.service, client, scope, pkce)
        if offline and role != "installed":
            request.params |= {"access_type": "offline", "approval_prompt": "force"}
        outcome = target.driver.approve(target.service.authorize_url(request.params))
        code = redirect_code(outcome, target.http)
        if not code:
            see = code_rule(request, client)
            raise PremiseFailed(f"no authorization code for {role} ({scope}): {outcome}", see=see)
        target.observations.token_format("code", code)
        access_type = request.params.get("access_type") or ""
        return IssuedCode(
            client, code, client.redirect_uri, request.verifier, request.challenge, access_type
        )

    def exchanges(self, issued: IssuedCode) -> bool:
        """Whether the code's usual exchange by its own client is granted: the positive twin of
        an exchange with one fault. The same code first; when the service used it up on the
        refused attempt (RFC 6749 lets it), a fresh code of the same kind of request."""
        fields = {"code_verifier": issued.verifier}
        service = self.target.service
        if granted(service.exchange(issued.client, issued.code, issued.redirect_uri, fields)):
            return True
        role = issued.client.role
        sibling = self.code(role, "profile", offline=issued.offline, pkce=issued.pkce)
        fields = {"code_verifier": sibling.verifier}
        response = service.exchange(sibling.client, sibling.code, sibling.redirect_uri, fields)
        return granted(response) is not None

    def refreshes(self, client: RegisteredApp, refresh_token: str | None) -> bool:
        """Whether the usual refresh of the client's refresh token is granted: the positive
        twin of a refresh with one fault. That token first; when the service ended it (a
        revoked one, or one the refused attempt ended), the refresh token of a new grant."""
        service = self.target.service
        if refresh_token and granted(service.refresh(client, refresh_token)) is not None:
            return True
        fresh = self.grant(client.role, "profile", offline=True)
        if not fresh.refresh_token:
            return False
        return granted(service.refresh(client, fresh.refresh_token)) is not None

    def grant(self, role: str, scope: str, *, offline: bool = False) -> HeldGrant:
        """A fresh grant: a code exchanged for tokens, read as a client library reads them."""
        issued = self.code(role, scope, offline=offline)
        target = self.target
        response = target.service.exchange(
            issued.client, issued.code, issued.redirect_uri, {"code_verifier": issued.verifier}
        )
        answer = granted(response)
        if answer is None:
            see = EXCHANGE_RULES.get(role, RULE.TOKEN_CODE_EXCHANGE)
            what = f"the code exchange for {role} answered {response.status_code} without tokens"
            raise PremiseFailed(what, see=see)
        target.observations.token_response(answer.fields)
        now = target.clock.now()
        exchanges = target.http.exchanges
        exchange = exchanges[-1] if exchanges else None
        held = held_grant(issued.client, scope, answer, response, now, issued.code, exchange)
        held.offline = issued.offline
        return held


class GrantCache:
    """Grants shared by reader scenarios, one per (application, scopes, access type).

    A shared grant is handed out only in the isolation epoch it was issued in and while its
    access token has time left; otherwise it is issued anew by an authorization (a refresh
    would itself change grants on a target that rotates). A writer scenario always gets a
    grant of its own. Why this keeps every verdict independent: steps/scheduling/isolation.py."""

    def __init__(
        self,
        authorizer: Authorizer,
        clock: Clock,
        isolation: Isolation | None = None,
        cascade: Cascade | None = None,
    ) -> None:
        self.authorizer = authorizer
        self.clock = clock
        self.isolation = isolation or Isolation()
        #: The run's memory of failed shared premises (steps/outcomes.py).
        self.cascade = cascade or Cascade()
        self._grants: dict[tuple[str, str, bool], tuple[int, HeldGrant]] = {}

    def get(self, role: str, scope: str, *, offline: bool = False) -> HeldGrant:
        """The shared grant (one of its own for a writer, or a new one when it may no longer
        work)."""
        if self.isolation.writer:
            return self.take(role, scope, offline=offline)
        key = shared_key(role, scope, offline)
        epoch = self.isolation.epoch()
        held = self._grants.get(key)
        if held is None or held[0] != epoch or self._expiring(held[1]):
            tokens = self.cascade.run(  # a shared grant that failed once is not tried again
                f"the shared grant {key}",
                lambda: self.authorizer.grant(role, scope, offline=offline),
            )
            held = (epoch, tokens)
            self._grants[key] = held
        return held[1]

    def require_read(self, held: HeldGrant, how: str) -> None:
        """A premise of a check that presents a token `how` (the Authorization header, a form
        body, the query): the service reads a live token of the same kind of application
        passed that way (else the way is its USERINFO-* rule's failure, not the check's): the
        twin of "it no longer works", and the control of "it still works". The header too: a
        service that reads no token there would pass every "no longer works" of the header."""
        role = held.client.role
        live = self.get(role, "profile email", offline=held.offline or role == "installed")
        service = self.authorizer.target.service
        where, see = _WAYS[how]
        if not service.token_accepted(live.access_token, how):
            raise PremiseFailed(f"the service reads no live token from {where}", see=see)

    def take(self, role: str, scope: str, *, offline: bool = False) -> HeldGrant:
        """A grant of a writer's own: the shared grant of the current epoch when there is one,
        else a new one (a reader gets a new one). Sound because no writer touched the shared
        grant since it was issued, readers do not change grants, and the writer is its last
        user: it leaves the cache, and the writer ends the epoch (steps/scheduling/isolation.py)."""
        key = shared_key(role, scope, offline)
        held = self._grants.get(key)
        if not self.isolation.writer or held is None:
            return self.authorizer.grant(role, scope, offline=offline)
        if held[0] != self.isolation.epoch() or self._expiring(held[1]):
            return self.authorizer.grant(role, scope, offline=offline)
        del self._grants[key]
        return held[1]

    def _expiring(self, tokens: HeldGrant) -> bool:
        expires_in = tokens.response.get("expires_in")
        lifetime = expires_in if isinstance(expires_in, int) else 3600
        return self.clock.now() - tokens.issued_at > lifetime - RENEW_MARGIN


def shared_key(role: str, scope: str, offline: bool) -> tuple[str, str, bool]:
    """A shared grant's key: the application, its scopes in any order, and whether it asked
    for offline access (which only a web application's request says: an installed
    application's request is the same either way)."""
    return (role, " ".join(sorted(scope.split())), offline and role != "installed")
