"""Missed defects, class 4: a flaky defect, shown in about half the tries.

Two backends serve the deployment behind a balancer, and one of them runs an older build; like
the real musicbrainz-server's hash-order bug, the defect shows at random. Each target breaks a
cheap check whose input varies, and counts its tries (the requests on which it may show) and
its shows, so the test can tell whether the suite took enough samples to find it with 99 %
probability, and whether it found every one it was shown. A try is a request that only the
rule's own scenarios make (a non-ASCII state, a near-miss secret, a token never issued), so
each show is a sample the suite checks."""

from __future__ import annotations

import random
from urllib.parse import parse_qsl, quote_plus, urlsplit, urlunsplit

from tests.suite.broken.exchange import Context, Forward, ProxyRequest, ProxyResponse
from tests.suite.broken.helpers import (
    grant,
    is_authorize,
    presented_token,
    remember_tokens,
    set_form_value,
)
from tests.suite.broken.mutations.sampling import near_miss
from tests.suite.broken.registry import USERINFO, one_rule

#: How often the old backend answers.
RATE = 0.5
_draw = random.SystemRandom()


def old_backend(ctx: Context) -> bool:
    """One try: whether the old backend answers it (counted)."""
    ctx.count("tries")
    shown = _draw.random() < RATE
    if shown:
        ctx.count("shown")
    return shown


def _latin1(pairs: list[tuple[str, str]]) -> str:
    """The query with state percent-encoded in ISO-8859-1 ('?' for what it cannot encode)."""
    return "&".join(
        f"{quote_plus(k)}={quote_plus(v.encode('latin-1', 'replace') if k == 'state' else v)}"
        for k, v in pairs
    )


@one_rule(
    "state-latin1-sometimes",
    "in about half the success redirects a non-ASCII state comes back percent-encoded in "
    "ISO-8859-1 instead of UTF-8",
    breaks="AUTHZ-STATE-ECHO",
    kind="flaky",
    rate=RATE,
)
async def state_latin1_sometimes(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    parts = urlsplit(resp.header("location") or "")
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    state = dict(pairs).get("state")
    if not (is_authorize(req) and "code" in dict(pairs) and state and not state.isascii()):
        return resp
    if old_backend(ctx):
        resp.set_header("location", urlunsplit(parts._replace(query=_latin1(pairs))))
    return resp


@one_rule(
    "near-miss-secret-sometimes",
    "in about half the tries a client secret that differs from the right one only at its end "
    "is accepted at the token endpoint",
    breaks="AUTH-TOKEN-CLIENT-SECRET",
    kind="flaky",
    rate=RATE,
)
async def near_miss_secret_sometimes(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.param("client_id")) if grant(req) else None
    given = req.param("client_secret")
    right = found[1]["client_secret"] if found else ""
    if found and given is not None and near_miss(given, right) and old_backend(ctx):
        set_form_value(req, "client_secret", right)
    return await forward(req)


@one_rule(
    "unknown-token-unexplained-sometimes",
    "in about half the tries a bearer token the service never issued is answered 401 with a "
    "Bearer challenge that names no error (as if no token had been sent)",
    breaks="USERINFO-ERR-INVALID-TOKEN",
    kind="flaky",
    rate=RATE,
)
async def unknown_token_unexplained_sometimes(
    req: ProxyRequest, forward: Forward, ctx: Context
) -> ProxyResponse:
    resp = await forward(req)
    remember_tokens(ctx, req, resp)
    token = presented_token(req) if req.path == USERINFO else None
    issued = ctx.state.get("owner", {})
    if token and token not in issued and resp.status == 401 and old_backend(ctx):
        resp.set_header("www-authenticate", 'Bearer realm="proxy"')
    return resp
