"""The generated broken target: one rule's fault on one combination, as a target of the
broken-target proxy (tests/suite/broken/proxy.py).

A target is named `proof:RULE:dimension=value,...`; the proxy makes it from its name (this
module registers a resolver when imported: `--targets tests.suite.proof.target`). For every
request it classifies the request against the run's ledger, lets the rule's fault handle it,
and notes the exchange in the ledger as the suite saw it. With PROOF_TRACE set in the proxy's
environment it also writes each request's classification to that file (one JSON per line),
to see what a run sent."""

from __future__ import annotations

import dataclasses
import json
import os
import traceback
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx

from tests.suite.broken.exchange import Context, Forward, ProxyRequest, ProxyResponse
from tests.suite.broken.registry import RESOLVERS, Handler, Mutation
from tests.suite.proof import faults as _faults  # noqa: F401 - registers the faults
from tests.suite.proof.classify import classify
from tests.suite.proof.fault import FAULTS, Target
from tests.suite.proof.ledger import Ledger
from tests.suite.proof.presented import Request

PREFIX = "proof:"
#: The transparent target: the classifier and the ledger at work, nothing changed (the
#: baseline of a proof, which also counts the requests a run makes).
BASELINE = "proof:baseline"
TRACE = "PROOF_TRACE"


def target_name(rule: str, combination: Mapping[str, str]) -> str:
    """The proxy's name of the target breaking `rule` on `combination`."""
    values = ",".join(f"{name}={value}" for name, value in combination.items())
    return f"{PREFIX}{rule}:{values}"


def parse_name(name: str) -> tuple[str, dict[str, str]] | None:
    """(rule, combination) of a target's name; None for a name of another kind."""
    if not name.startswith(PREFIX):
        return None
    rule, _, values = name[len(PREFIX) :].partition(":")
    pairs = [item.split("=", 1) for item in values.split(",") if item]
    if rule not in FAULTS or any(len(pair) != 2 for pair in pairs):
        return None
    return rule, {name: value for name, value in pairs}


@cache
def generated(name: str) -> Mutation | None:
    """The target a name describes (the proxy's resolver)."""
    if name == BASELINE:
        return Mutation(name, "no fault: the classifier at work", _handler(None, {}), frozenset())
    parsed = parse_name(name)
    if parsed is None:
        return None
    rule, combination = parsed
    return Mutation(name, FAULTS[rule].summary, _handler(rule, combination), frozenset({rule}))


def _handler(rule: str | None, combination: dict[str, str]) -> Handler:
    """Classify, let the fault (if any) handle the request, note the exchange."""
    fault = FAULTS[rule].handler if rule else None

    async def handler(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
        ctx.count("requests")
        ledger = Ledger.of(ctx.profile, ctx.state)
        original = _copy(req)
        request = Request(original, ledger)
        values = classify(request)
        target = Target(
            rule or "", combination, values, request.kind, request.presented, ledger, ctx, forward
        )
        try:
            resp = await fault(req, target) if fault else await forward(req)
        except httpx.HTTPError:
            raise  # the server's connection, not the fault: the proxy answers 500 as always
        except Exception:  # a fault's own mistake: counted and shown, the request passed on
            ctx.count("fault errors")
            traceback.print_exc()
            resp = await forward(_copy(original))
        ledger.observe(original, resp)
        _trace(rule, original, values, resp, ctx)
        return resp

    return handler


def _copy(req: ProxyRequest) -> ProxyRequest:
    """The request as received, kept apart from the one a fault changes (its lists copied;
    what they hold is immutable)."""
    return dataclasses.replace(req, query=list(req.query), headers=list(req.headers))


def _trace(
    rule: str | None, req: ProxyRequest, values: dict[str, str], resp: ProxyResponse, ctx: Context
) -> None:
    path = os.environ.get(TRACE)
    if not path:
        return
    told = {k: v for k, v in values.items() if v != "-"}
    error = dict(parse_qsl(urlsplit(resp.header("location") or "").query)).get("error")
    line: dict[str, object] = {"target": rule or "baseline", "request": f"{req.method} {req.path}"}
    line |= {"values": told, "status": resp.status, "applied": ctx.counters.get("applied", 0)}
    line |= {"error": error} if error else {}
    with Path(path).open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


RESOLVERS.append(generated)
