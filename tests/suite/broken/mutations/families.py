"""Broken targets that behave as real providers do (families, premises, vocabulary).

`token-families` acts like the metabrainz.org provider (see the shared reference
metabrainz-behaviour.md): refresh tokens rotate (the one sent is retired), each refresh ends
the other access tokens of that client, and a retired refresh token or a replayed code that
comes back revokes every token of that client and user. It also keeps, as the real
musicbrainz-server does, the refresh token of a grant whose access token was revoked first
alive through the user's revocation on the website. A suite that shares grants with the
scenarios that trigger the family revocation gives different verdicts in a full run than rule
by rule; one whose premises reuse the rotated token instead of the original passes
REFRESH-TOKEN-STAYS-VALID.

`online-refresh-survives` hands online web applications a refresh token that outlives the
revocation of their access token (the whole grant must go).

`metabrainz-scopes` names the MusicBrainz scopes as metabrainz.org does (`musicbrainz:tag`) and
never shows the email; its profile maps the names (`[scopes]`), so every flow is checked with
them and only the renaming (SCOPE-IDENTIFIERS) and the missing email fail.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from tests.suite.broken.exchange import (
    FORM,
    Context,
    Forward,
    ProxyRequest,
    ProxyResponse,
    json_response,
)
from tests.suite.broken.helpers import grant, set_form_value, token_answer
from tests.suite.broken.registry import AUTHORIZE, REVOKE, USERINFO, mutation

MANUAL_REVOKE = "/account/authorized/revoke"
SPEC_RENAMED = ("tag", "rating", "collection", "submit_isrc", "submit_barcode")


def _fake_tokens(refresh_token: str) -> ProxyResponse:
    """A token response for a refresh the upstream would have refused."""
    token = secrets.token_urlsafe(24)
    body = {"access_token": token, "token_type": "Bearer", "expires_in": 3600}
    return json_response(200, body | {"refresh_token": refresh_token})


class Families:
    """The proxy's book of token families: aliases it handed out, retired ones, and every
    upstream token issued to each client."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.alias: dict[str, str] = state.setdefault("alias", {})  # alias -> upstream refresh
        self.retired: set[str] = state.setdefault("retired", set())
        self.issued: dict[str, list[str]] = state.setdefault("issued", {})  # client -> tokens
        self.access: set[str] = state.setdefault("access", set())
        self.owner: dict[str, str] = state.setdefault("owner", {})  # upstream refresh -> client
        self.pair: dict[str, str] = state.setdefault("pair", {})  # access -> upstream refresh
        self.orphans: set[str] = state.setdefault("orphans", set())
        self.outliving: set[str] = state.setdefault("outliving", set())
        self.codes: set[str] = state.setdefault("codes", set())

    def issue(self, client_id: str, resp: ProxyResponse) -> None:
        """Note a successful token response's tokens; hand out an alias for its refresh token."""
        data = resp.json()
        if not isinstance(data, dict) or not isinstance(data.get("access_token"), str):
            return
        tokens = self.issued.setdefault(client_id, [])
        tokens.append(data["access_token"])
        self.access.add(data["access_token"])
        upstream = data.get("refresh_token")
        if isinstance(upstream, str):
            tokens.append(upstream)
            self.owner[upstream] = client_id
            self.pair[data["access_token"]] = upstream
            alias = "rot-" + secrets.token_urlsafe(24)
            self.alias[alias] = upstream
            data["refresh_token"] = alias
            resp.set_json(data)

    def owns(self, client_id: str | None, alias: str) -> bool:
        """Whether an alias was handed out to this client."""
        return self.owner.get(self.alias.get(alias, "")) == client_id

    async def revoke_all(self, client_id: str, forward: Forward, ctx: Context) -> None:
        """Revoke every token of the client (there is one user), as a family revocation."""
        found = ctx.client_by_id(client_id)
        if found is None:
            return
        for token in self.issued.pop(client_id, []):
            await _revoke(forward, found[1], token)

    async def retire_other_access(
        self, client_id: str, newest: str, forward: Forward, ctx: Context
    ) -> None:
        """A refresh ends every other access token of the client."""
        found = ctx.client_by_id(client_id)
        tokens = self.issued.get(client_id, [])
        if found is None:
            return
        for token in [t for t in tokens if t in self.access and t != newest]:
            await _revoke(forward, found[1], token)
            tokens.remove(token)


def _in_form(req: ProxyRequest, name: str) -> str | None:
    return next((v for k, v in req.form() if k == name), None)


async def _revoke(forward: Forward, client: dict[str, Any], token: str) -> None:
    fields = {k: client[k] for k in ("client_id", "client_secret")} | {"token": token}
    req = ProxyRequest("POST", REVOKE, [], [("content-type", FORM)])
    req.set_form(list(fields.items()))
    await forward(req)


@mutation(
    "token-families",
    "refresh tokens rotate; a used or revoked one (or a replayed code) revokes every token of "
    "the client; an orphaned refresh token outlives the user's revocation",
    breaks={"REFRESH-SAME-TOKEN", "REFRESH-TOKEN-STAYS-VALID", "REVOKE-MANUAL"},
    also={
        "REFRESH-NEW-ACCESS-TOKEN",
        "REVOKE-ACCESS-KEEPS-REFRESH",
        "REVOKE-REFRESH-WHOLE-GRANT",
        "TOKEN-CODE-REPLAY-REVOKES",
        "USERINFO-HEADER",
        "AUTH-BEARER-ONLY",
        "SCOPE-EMAIL-GRANTS-EMAIL",
        "TOKEN-TYPE-BEARER",
    },
)
async def token_families(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    book = Families(ctx.state)
    kind = grant(req)
    if kind == "refresh_token":
        return await _refresh(book, req, forward, ctx)
    if kind == "authorization_code":
        return await _exchange(book, req, forward, ctx)
    if req.is_("POST", REVOKE):
        return await _revocation(book, req, forward)
    resp = await forward(req)
    if req.is_("POST", MANUAL_REVOKE):
        book.outliving |= book.orphans
    return resp


async def _refresh(book: Families, req: ProxyRequest, forward: Forward, ctx: Context):
    sent = _in_form(req, "refresh_token") or ""
    if sent in book.retired:
        await book.revoke_all(book.owner.get(book.alias[sent], ""), forward, ctx)
        return json_response(400, {"error": "invalid_request", "error_description": "revoked"})
    upstream = book.alias.get(sent)
    if upstream in book.outliving:
        return _fake_tokens(sent)
    if upstream is not None:
        set_form_value(req, "refresh_token", upstream)
    resp = await forward(req)
    client_id = req.param("client_id") or ""
    if resp.status == 200 and upstream is not None:
        book.retired.add(sent)
        book.issue(client_id, resp)
        data = resp.json() or {}
        await book.retire_other_access(client_id, data.get("access_token", ""), forward, ctx)
    return resp


async def _exchange(book: Families, req: ProxyRequest, forward: Forward, ctx: Context):
    code = req.param("code") or ""
    resp = await forward(req)
    client_id = req.param("client_id") or ""
    if resp.status == 200:
        book.codes.add(code)
        book.issue(client_id, resp)
    elif code in book.codes:
        await book.revoke_all(client_id, forward, ctx)
    return resp


async def _revocation(book: Families, req: ProxyRequest, forward: Forward) -> ProxyResponse:
    token = _in_form(req, "token") or ""
    client_id = _in_form(req, "client_id")
    upstream = book.alias.get(token) if book.owns(client_id, token) else None
    if upstream is not None:
        set_form_value(req, "token", upstream)
    resp = await forward(req)
    if resp.status == 200 and upstream is not None:
        book.retired.add(token)
    if resp.status == 200 and token in book.pair and book.owner[book.pair[token]] == client_id:
        book.orphans.add(book.pair[token])
    return resp


@mutation(
    "online-refresh-survives",
    "online web applications get a refresh token that outlives the revocation of their "
    "access token",
    breaks={"TOKEN-NO-REFRESH-ONLINE", "REVOKE-ONLINE-WHOLE-GRANT"},
    also={"REVOKE-ACCESS-KEEPS-REFRESH", "TOKEN-REFRESH-OFFLINE"},
)
async def online_refresh_survives(req: ProxyRequest, forward: Forward, ctx: Context):
    handed_out: set[str] = ctx.state.setdefault("online_refresh", set())
    if grant(req) == "refresh_token" and req.param("refresh_token") in handed_out:
        return _fake_tokens(req.param("refresh_token") or "")
    resp = await forward(req)
    data = token_answer(req, resp, "authorization_code")
    if isinstance(data, dict) and "refresh_token" not in data:
        data["refresh_token"] = "online-" + secrets.token_urlsafe(24)
        handed_out.add(data["refresh_token"])
        resp.set_json(data)
    return resp


#: metabrainz.org's names for the MusicBrainz scopes (profile and email keep theirs).
PREFIXED = {name: f"musicbrainz:{name}" for name in SPEC_RENAMED}
MANUAL_LIST = "/account/authorized"
HIDDEN_SCOPE = re.compile(r'(<input type="hidden" name="scope" value=")([^"]*)(")')


def _words(scope: str, table: dict[str, str]) -> str:
    return " ".join(table.get(word, word) for word in scope.split(" "))


def _to_upstream(req: ProxyRequest, sent: set[str]) -> None:
    """The deployment's names to the upstream's. A bare spec name is unknown, as on
    metabrainz.org, except in a request the upstream itself sent the browser back with (after
    login, the consent form): it carries the query the proxy already translated."""
    if req.raw_query in sent:
        return
    back = {own: spec for spec, own in PREFIXED.items()}
    back |= {spec: f"unknown-{spec}" for spec in PREFIXED}
    req.query = [(k, _words(v, back) if k == "scope" else v) for k, v in req.query]
    sent.add(req.query_string())


@mutation(
    "metabrainz-scopes",
    "MusicBrainz scopes are named musicbrainz:tag etc. (the profile maps them) and the email "
    "is never shown",
    breaks={"SCOPE-IDENTIFIERS", "SCOPE-EMAIL-GRANTS-EMAIL"},
    also={
        "SCOPE-PROFILE-WITHHELD",
        "SCOPE-EMAIL-WITHHELD",
        "SCOPE-CASE-SENSITIVE",
        "AUTHZ-APPROVAL-AUTO",
        "AUTHZ-APPROVAL-AUTO-NEW-SCOPES",
        "USERINFO-ERR-INSUFFICIENT-SCOPE",
        "REVOKE-MANUAL",
    },
    profile={"scopes": PREFIXED},
)
async def metabrainz_scopes(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.path == AUTHORIZE:
        _to_upstream(req, ctx.state.setdefault("translated", set()))
    if req.is_("POST", MANUAL_REVOKE) and (scope := _in_form(req, "scope")) is not None:
        set_form_value(req, "scope", _words(scope, {v: k for k, v in PREFIXED.items()}))
    resp = await forward(req)
    if req.is_("GET", MANUAL_LIST):
        html = resp.body.decode()
        html = HIDDEN_SCOPE.sub(lambda m: m[1] + _words(m[2], PREFIXED) + m[3], html)
        resp.body = html.encode()
    data = resp.json() if req.path == USERINFO and resp.status == 200 else None
    if isinstance(data, dict) and data.pop("email", None) is not None:
        data.pop("email_verified", None)
        resp.set_json(data)
    return resp
