"""The registry of broken targets: a mutation, the rules it must break, the rules it must not."""

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

    @property
    def selection(self) -> frozenset[str]:
        """The rules the suite runs for this target."""
        return self.breaks | self.also


MUTATIONS: dict[str, Mutation] = {}


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


@mutation("none", "no mutation: the proxy is transparent", breaks=())
async def passthrough(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    """The baseline: what the server answers, only with the proxy's base URL."""
    return await forward(req)
