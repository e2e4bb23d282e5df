"""A fault: the plausible defect a real server could have for one rule, written once as a
function of the request and its answer, and applied only on the target's combination.

A fault handler gets the request and a `Target`: the rule's combination, the request's
classification (tests/suite/proof/classify.py), the run's ledger and the fault's own notes. It
forwards through `Target.send` and may change the request before and the answer after; it asks
`Target.matches` whether what it is about to break lies on the combination, and says
`Target.applied` when it broke something (the run's counters tell a target whose fault never
applied from one whose rule passed despite it).

The techniques (tests/suite/proof/actions.py): a refusal is emulated by forwarding with the
code, token or secret swapped for one never issued (the server's own refusal, in its own
shape); "still works" by not forwarding what would end it (the end kept in the fault's notes,
and the token refused by the same swap wherever the combination does not hold) or by answering
from the token's earlier answers; a format defect by rewriting the answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tests.suite.broken.exchange import Context, Forward, ProxyRequest, ProxyResponse
from tests.suite.broken.helpers import swap_credentials
from tests.suite.proof.actions import replace_param
from tests.suite.proof.classify import TELLS, agrees
from tests.suite.proof.ledger import Ledger
from tests.suite.proof.records import Code


@dataclass
class Target:
    """What a fault knows while it handles one request."""

    rule: str
    combination: Mapping[str, str]
    values: dict[str, str]  # the request's classification
    kind: str  # what the request is (presented.Request.kind)
    presented: str | None  # the code or token it presents
    ledger: Ledger
    context: Context
    forward: Forward

    async def send(self, req: ProxyRequest) -> ProxyResponse:
        """Forward the (perhaps changed) request to the server."""
        return await self.forward(req)

    def matches(
        self, values: Mapping[str, str] | None = None, only: Iterable[str] | None = None
    ) -> bool:
        """Whether the request holds the combination on every dimension it tells (classify.
        TELLS), or on `only` of them; or whether a classification the fault put together
        (from two requests) holds it on every dimension it names."""
        told = TELLS.get(self.kind, frozenset()) if values is None else set(values)
        seen = self.values if values is None else values
        names = [n for n in (only or self.combination) if n in self.combination and n in told]
        return all(agrees(seen.get(name, "-"), self.combination[name]) for name in names)

    def hits(
        self,
        condition: bool = True,
        values: Mapping[str, str] | None = None,
        only: Iterable[str] | None = None,
    ) -> bool:
        """Whether the fault applies here (its own condition, and the combination holds); an
        application is counted."""
        if condition and self.matches(values, only):
            self.applied()
            return True
        return False

    def applied(self, what: str = "applied") -> None:
        """Count one application of the fault (read back with the proxy's counters)."""
        self.context.count(what)
        if what != "applied":
            self.context.count("applied")

    def as_owner(self, req: ProxyRequest, endpoint: str) -> None:
        """A code or token of another application on the combination presented with its
        owner's credentials (a server that does not check whose it is)."""
        issued = self.ledger.codes.get(self.presented or "") or self.ledger.tokens.get(
            self.presented or ""
        )
        foreign = self.values["endpoint"] == endpoint and self.values["invalidity"] == "foreign"
        if issued is None or not self.hits(foreign):
            return
        owner = issued.authorization if isinstance(issued, Code) else issued.grant.authorization
        swap_credentials(req, self.context, owner.client_id)
        if endpoint == "exchange":
            replace_param(req, "redirect_uri", owner.redirect_uri)

    @property
    def notes(self) -> dict[str, Any]:
        """The fault's own state for this run (tokens it keeps alive, answers it cached)."""
        notes: dict[str, Any] = self.context.state.setdefault("fault", {})
        return notes


FaultHandler = Callable[[ProxyRequest, Target], Awaitable[ProxyResponse]]
ProfileEdit = Callable[[dict[str, Any], str], dict[str, Any]]


@dataclass(frozen=True)
class Fault:
    """The defect of one rule."""

    rule: str
    summary: str
    handler: FaultHandler
    #: The target's profile from the upstream's and the proxy's plain-HTTP URL (a fault that
    #: serves plain HTTP points the profile at it); None: the upstream's as it is.
    profile: ProfileEdit | None = None
    #: Rules whose words the rule restates (a VERSION- rule names a capability whose rules
    #: then fail as well): their failing is expected, not collateral.
    implies: frozenset[str] = frozenset()


FAULTS: dict[str, Fault] = {}


def fault(
    rule: str, summary: str, profile: ProfileEdit | None = None, implies: Iterable[str] = ()
) -> Callable[[FaultHandler], FaultHandler]:
    """Register a handler as the fault of a rule (one per rule)."""

    def register(handler: FaultHandler) -> FaultHandler:
        if rule in FAULTS:
            raise ValueError(f"{rule} has two faults")
        FAULTS[rule] = Fault(rule, summary, handler, profile, frozenset(implies))
        return handler

    return register
