"""Faults of the code exchange (spec 2.2, 3, 4.2, 5; RFC 6749 4.1.2, 4.1.3, 2.3.1): what a code
is exchanged for, by whom, with which redirect URI and credentials, how often and how late."""

from __future__ import annotations

from tests.suite.broken.exchange import ProxyRequest, ProxyResponse, json_response
from tests.suite.broken.registry import CLOCK
from tests.suite.proof.actions import (
    cached,
    granted,
    params_to_body,
    replace_param,
    swap,
    swap_bearer,
)
from tests.suite.proof.fault import Target, fault
from tests.suite.proof.resemblance import OOB


def _exchange(t: Target) -> bool:
    return t.values["endpoint"] == "exchange"


def _valid_code(t: Target) -> bool:
    return _exchange(t) and t.values["invalidity"] == "-" and t.values["missing"] == "-"


#: The rules whose check is a flow completing with a kind of application, with or without
#: PKCE: a deployment where that kind cannot complete it breaks them as well.
FLOW_RULES = (
    "TOKEN-CODE-EXCHANGE",
    "PKCE-S256",
    "PKCE-OPTIONAL",
    "TOKEN-REFRESH-OFFLINE",
    "DESKTOP-OOB",
    "DESKTOP-LOCALHOST-ANY-PORT",
    "CODE-OOB-SHOWN",
)


@fault(
    "APP-TYPES",
    "the code exchange of this kind of application is refused (the flow cannot be completed)",
    implies=FLOW_RULES,
)
async def flow_refused(req: ProxyRequest, t: Target) -> ProxyResponse:
    if t.hits(_valid_code(t)):
        swap(req, "code")
    return await t.send(req)


@fault(
    "TOKEN-CODE-SINGLE-USE",
    "a used code exchanged again is answered with the tokens of its first exchange",
)
async def code_reused(req: ProxyRequest, t: Target) -> ProxyResponse:
    first: dict[str, ProxyResponse] = t.notes.setdefault("first", {})
    code = req.param("code") or ""
    resp = await t.send(req)
    if t.hits(_exchange(t) and t.values["invalidity"] == "used" and code in first):
        return cached(first[code])  # the server still revoked the grant, as RFC 6749 wants
    if _exchange(t) and granted(req, resp) is not None:
        first.setdefault(code, cached(resp))
    return resp


@fault(
    "TOKEN-CODE-REPLAY-REVOKES",
    "a used code presented again is refused, but the tokens of its first exchange keep working",
)
async def replay_spares_tokens(req: ProxyRequest, t: Target) -> ProxyResponse:
    spared: set[int] = t.notes.setdefault("spared", set())
    code = t.ledger.codes.get(req.param("code") or "")
    if _exchange(t) and t.values["invalidity"] == "used" and code and code.grant:
        if t.matches(only=("client", "pkce")):
            spared.add(code.grant.id)
            swap(req, "code")  # refused as a code never issued: nothing is revoked
        return await t.send(req)
    token = t.ledger.tokens.get(t.presented or "")
    if token is not None and token.grant.id in spared:
        used = t.values["delivery"] != "-"
        if used and not t.hits():
            swap_bearer(req)  # it works only on the combination
        elif t.values["endpoint"] == "refresh":
            swap(req, "refresh_token")
    return await t.send(req)


@fault(
    "TOKEN-CODE-LIFETIME",
    "an authorization code does not expire: ten minutes later it is still exchanged",
)
async def code_lasts(req: ProxyRequest, t: Target) -> ProxyResponse:
    """While the newest code waits to be exchanged, time the suite lets pass does not pass on
    the server (the advance is owed, and paid once the code was exchanged)."""
    owed: int = t.notes.get("owed", 0)
    if req.is_("POST", CLOCK) and _code_waits(t):
        t.notes["owed"] = owed + int(req.param("advance") or 0)
        return await _clock_answer(t)
    if req.is_("GET", CLOCK) and owed:
        return await _clock_answer(t)
    if t.hits(owed > 0 and _exchange(t) and t.values["invalidity"] == "expired"):
        resp = await t.send(req)
        await _pay(t)
        return resp
    if owed:
        await _pay(t)
    return await t.send(req)


def _code_waits(t: Target) -> bool:
    """Whether the newest code is still unused and of the combination."""
    newest = max(t.ledger.codes.values(), key=lambda c: c.issued_at, default=None)
    if newest is None or newest.used:
        return False
    authorization = newest.authorization
    return t.matches({"client": authorization.client, "pkce": authorization.pkce, "grant": "code"})


async def _clock_answer(t: Target) -> ProxyResponse:
    current = await t.send(ProxyRequest("GET", CLOCK, [], []))
    data = current.json() if isinstance(current.json(), dict) else {}
    owed = t.notes.get("owed", 0)
    answer = {"offset": data.get("offset", 0) + owed, "now": data.get("now", 0) + owed}
    return json_response(200, answer)


async def _pay(t: Target) -> None:
    owed = t.notes.pop("owed", 0)
    req = ProxyRequest("POST", CLOCK, [], [])
    req.set_form([("advance", str(owed))])
    await t.send(req)


#: What a lax server takes for a field a code exchange leaves out.
def _fill_exchange(req: ProxyRequest, t: Target) -> None:
    missing = t.values["missing"]
    code = t.ledger.codes.get(req.param("code") or "")
    client_id = req.param("client_id") or (code.authorization.client_id if code else None)
    if missing == "grant_type":
        replace_param(req, "grant_type", "authorization_code")
    elif missing == "code":
        latest = t.ledger.latest_code(client_id)
        replace_param(req, "code", latest.value if latest else None)
    elif missing == "client_id":
        replace_param(req, "client_id", client_id)
    elif missing == "client_secret":
        replace_param(req, "client_secret", t.ledger.secret(client_id))
    elif missing == "redirect_uri":
        replace_param(req, "redirect_uri", code.authorization.redirect_uri if code else None)


@fault(
    "TOKEN-REQUIRED-PARAMS",
    "a code exchange missing a field is completed with what the server can guess (the grant "
    "type, the client's pending code, the code's client, its secret, its redirect URI)",
)
async def exchange_guesses(req: ProxyRequest, t: Target) -> ProxyResponse:
    if t.hits(_exchange(t) and t.values["missing"] != "-"):
        _fill_exchange(req, t)
    return await t.send(req)


@fault(
    "TOKEN-REDIRECT-URI-REGISTERED",
    "the code exchange does not compare the redirect URI with the registered one",
)
async def exchange_redirect_unchecked(req: ProxyRequest, t: Target) -> ProxyResponse:
    code = t.ledger.codes.get(req.param("code") or "")
    if code is not None and t.hits(_exchange(t) and t.values["redirect_change"] != "-"):
        replace_param(req, "redirect_uri", code.authorization.redirect_uri)
    return await t.send(req)


@fault(
    "TOKEN-REDIRECT-URI-SAME",
    "the code exchange takes any redirect URI the application may use, not the code's own",
)
async def exchange_redirect_any_allowed(req: ProxyRequest, t: Target) -> ProxyResponse:
    code = t.ledger.codes.get(req.param("code") or "")
    uri = req.param("redirect_uri")
    allowed = t.values["redirect_change"] == "-"
    own = code.authorization.redirect_uri if code else None
    if t.hits(_valid_code(t) and own is not None and allowed and uri != own):
        replace_param(req, "redirect_uri", own)
    return await t.send(req)


@fault(
    "TOKEN-CROSS-CLIENT-CODE",
    "a code is exchanged by any registered application, not only the one it was issued to",
)
async def code_for_anyone(req: ProxyRequest, t: Target) -> ProxyResponse:
    t.as_owner(req, "exchange")
    return await t.send(req)


@fault(
    "TOKEN-NO-QUERY-PARAMS",
    "the token endpoint takes its parameters (the client secret too) from the URL query",
)
async def token_query_taken(req: ProxyRequest, t: Target) -> ProxyResponse:
    if t.hits(_exchange(t) and bool(req.query)):
        params_to_body(req)
    return await t.send(req)


@fault(
    "AUTH-TOKEN-CLIENT-SECRET",
    "the token endpoint accepts a client secret that only resembles the right one",
)
async def token_secret_lax(req: ProxyRequest, t: Target) -> ProxyResponse:
    token_endpoint = t.values["endpoint"] in ("exchange", "refresh")
    if t.hits(token_endpoint and t.values["near_miss"] != "-"):
        replace_param(req, "client_secret", t.ledger.secret(req.param("client_id")))
    return await t.send(req)


@fault("DESKTOP-OOB", "a code delivered out of band cannot be exchanged")
async def oob_code_refused(req: ProxyRequest, t: Target) -> ProxyResponse:
    code = t.ledger.codes.get(req.param("code") or "")
    if code is not None and t.hits(_valid_code(t) and code.authorization.redirect_uri == OOB):
        swap(req, "code")
    return await t.send(req)
