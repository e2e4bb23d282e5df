"""The registry of broken targets: a mutation, the rules it must break, the rules it must not.

`MUTATIONS` are proven rule by rule (the suite runs only `breaks | also`). `ONE_RULE` holds the
one-rule defects of the classes a suite can miss (`KINDS`), proven by full runs: every rule runs,
and only the broken one may change its verdict from the transparent proxy's (or become "could not
be checked"). Their proof differs (collateral verdicts, flaky defects), so they are kept apart;
the proxy serves both (`find`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tests.suite.broken.exchange import (
    Context,
    Forward,
    ProxyRequest,
    ProxyResponse,
)

AUTHORIZE, TOKEN, REVOKE, USERINFO = (
    "/oauth2/authorize",
    "/oauth2/token",
    "/oauth2/revoke",
    "/oauth2/userinfo",
)
CLOCK = "/_test/clock"

Handler = Callable[[ProxyRequest, Forward, Context], Awaitable[ProxyResponse]]


@dataclass(frozen=True)
class Mutation:
    """A broken target and the verdicts it must produce."""

    name: str
    summary: str
    handler: Handler
    breaks: frozenset[str]
    also: frozenset[str] = frozenset()
    profile: dict[str, Any] = field(default_factory=dict)  # overrides for this run's profile
    known_gap: str = ""  # why the suite does not catch it yet (the test expects the miss)
    #: Not broken at all: a way a conforming server may answer that the suite must pass.
    conforming: bool = False
    #: The class of a one-rule defect (KINDS), for the full-run proof.
    kind: str = ""
    #: A flaky defect: the chance it shows on each try (the proxy counts tries and shows).
    rate: float = 0.0

    @property
    def selection(self) -> frozenset[str]:
        """The rules the suite runs for this target."""
        return self.breaks | self.also


MUTATIONS: dict[str, Mutation] = {}
ONE_RULE: dict[str, Mutation] = {}
#: Makers of targets named on the fly rather than registered (the generated proof's, whose
#: names carry a rule and a combination): each returns None for a name it does not make.
RESOLVERS: list[Callable[[str], Mutation | None]] = []
#: The classes of defects a suite misses or blames on other rules.
KINDS = {
    "premise": "a format defect in one response that other scenarios use as a premise",
    "reader": "a leniency of the suite's readers that the deployment exploits",
    "variant": "a variant the rule covers (client, grant kind, delivery, error) one sample misses",
    "flaky": "a defect shown in about half the tries of a cheap check whose input varies",
}


def find(name: str) -> Mutation | None:
    """A registered target of either kind of proof, or one a resolver makes from its name."""
    found = MUTATIONS.get(name) or ONE_RULE.get(name)
    for resolve in RESOLVERS:
        found = found or resolve(name)
    return found


def mutation(
    name: str,
    summary: str,
    breaks: Iterable[str],
    also: Iterable[str] = (),
    profile: dict[str, Any] | None = None,
    known_gap: str = "",
) -> Callable[[Handler], Handler]:
    """Register a handler as a named broken target."""

    def register(handler: Handler) -> Handler:
        MUTATIONS[name] = Mutation(
            name, summary, handler, frozenset(breaks), frozenset(also), profile or {}, known_gap
        )
        return handler

    return register


def variant(name: str, summary: str, rules: Iterable[str]) -> Callable[[Handler], Handler]:
    """Register a conforming variant: a target that answers differently from the bundled
    server where the spec allows it, on which every one of `rules` must pass."""

    def register(handler: Handler) -> Handler:
        MUTATIONS[name] = Mutation(
            name, summary, handler, frozenset(), frozenset(rules), conforming=True
        )
        return handler

    return register


def one_rule(
    name: str, summary: str, breaks: str, kind: str, known_gap: str = "", rate: float = 0.0
) -> Callable[[Handler], Handler]:
    """Register a handler as a one-rule defect of one of the classes (`KINDS`)."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}: one of {sorted(KINDS)}")

    def register(handler: Handler) -> Handler:
        ONE_RULE[name] = Mutation(
            name, summary, handler, frozenset({breaks}), known_gap=known_gap, kind=kind, rate=rate
        )
        return handler

    return register


@mutation("none", "no mutation: the proxy is transparent", breaks=())
async def passthrough(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    """The baseline: what the server answers, only with the proxy's base URL."""
    return await forward(req)
