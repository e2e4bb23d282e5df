"""What the proxy saw of one run, as the suite saw it: the authorizations and the codes they
led to, the grants and their tokens, revocations, and the clock the suite moved.

The classifier reads it to tell what a request presents (the client and authorization a code
or token was issued to, where a token came from, whether it is used, revoked or expired). It
records the exchanges as the suite sent and received them (the request before a fault touched
it, the answer the fault gave), so a value keeps the meaning the suite gave it. Revocations
follow the spec (section 3): a refresh token, or an online application's access token, takes
its whole grant; any other access token only itself; the user's revocation on the website
takes every grant of the application; a used code presented again takes the grant it gave (RFC
6749 4.1.2)."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.suite.broken.exchange import ProxyRequest, ProxyResponse
from tests.suite.broken.helpers import presented_token
from tests.suite.broken.registry import AUTHORIZE, CLOCK, REVOKE, TOKEN, USERINFO
from tests.suite.proof.records import (
    ACCESS_LIFETIME,
    Authorization,
    Code,
    Grant,
    Token,
    client_type,
    pkce_kind,
)
from tests.suite.proof.resemblance import Issued

MANUAL_REVOKE = "/account/authorized/revoke"
#: The longest an authorization code may live (RFC 6749 4.1.2: ten minutes at most).
CODE_LIFETIME = 600


@dataclass
class Ledger:
    """One run's book (kept in the proxy's per-run state)."""

    clients: dict[str, tuple[str, dict[str, Any]]]  # client_id -> (profile role, its table)
    codes: dict[str, Code] = field(default_factory=dict)
    tokens: dict[str, Token] = field(default_factory=dict)
    grants: list[Grant] = field(default_factory=list)
    offset: float = 0.0  # the test clock's offset, as its last answer said
    answers: dict[str, ProxyResponse] = field(default_factory=dict)  # token -> last 200 answer
    #: Authorization requests as the suite sent them, by what identifies them: a consent
    #: form posts the request as the service understood it (a fault may have changed it).
    asked: dict[tuple[str, ...], Authorization] = field(default_factory=dict)
    last_user_info: ProxyResponse | None = None
    issued: Issued = field(default_factory=Issued)  # every code and token the suite was given
    _ids: itertools.count[int] = field(default_factory=itertools.count)

    @classmethod
    def of(cls, profile: dict[str, Any], state: dict[str, Any]) -> Ledger:
        """The ledger of the current run (created at the first request after a switch)."""
        if "ledger" not in state:
            clients = {
                str(table["client_id"]): (role, table)
                for role, table in (profile.get("clients") or {}).items()
            }
            state["ledger"] = cls(clients)
        ledger: Ledger = state["ledger"]
        return ledger

    def now(self) -> float:
        """The target's clock: real time moved by the suite's advances."""
        return time.time() + self.offset

    def role(self, client_id: str | None) -> str | None:
        found = self.clients.get(client_id or "")
        return found[0] if found else None

    def secret(self, client_id: str | None) -> str | None:
        return self._registered(client_id, "client_secret")

    def registered_uri(self, client_id: str | None) -> str | None:
        return self._registered(client_id, "redirect_uri")

    def _registered(self, client_id: str | None, name: str) -> str | None:
        found = self.clients.get(client_id or "")
        return str(found[1][name]) if found else None

    def client_id_of(self, role: str) -> str | None:
        return next((cid for cid, (r, _) in self.clients.items() if r == role), None)

    def expired(self, token: Token) -> bool:
        return token.kind == "access" and self.now() >= token.issued_at + token.expires_in

    def code_expired(self, code: Code) -> bool:
        return self.now() >= code.issued_at + CODE_LIFETIME

    def grant_tokens(self, grant: Grant) -> list[Token]:
        return [t for t in self.tokens.values() if t.grant is grant]

    def latest_code(self, client_id: str | None) -> Code | None:
        """The newest code not yet used of an application."""
        mine = [c for c in self.codes.values() if c.authorization.client_id == client_id]
        return max((c for c in mine if not c.used), key=lambda c: c.issued_at, default=None)

    def latest_refresh_token(self, client_id: str | None) -> Token | None:
        """The newest live refresh token of an application."""
        live = [t for t in self.tokens.values() if t.kind == "refresh" and not t.dead]
        return max(
            (t for t in live if t.grant.authorization.client_id == client_id),
            key=lambda t: t.issued_at,
            default=None,
        )

    def observe(self, req: ProxyRequest, resp: ProxyResponse) -> None:
        """Note what one exchange (as the suite saw it) changed."""
        if req.path == CLOCK:
            self._clock(resp)
        elif req.path == AUTHORIZE:
            self._authorization(req, resp)
        elif req.is_("POST", TOKEN):
            self._token(req, resp)
        elif req.is_("POST", REVOKE) and resp.status == 200:
            self._revocation(req)
        elif req.is_("POST", MANUAL_REVOKE) and resp.status in (302, 303):
            self._manual_revocation(req)
        elif req.path == USERINFO and resp.status == 200:
            self._user_info(req, resp)

    def _clock(self, resp: ProxyResponse) -> None:
        data = resp.json()
        if isinstance(data, dict) and isinstance(data.get("offset"), int | float):
            self.offset = float(data["offset"])

    def _authorization(self, req: ProxyRequest, resp: ProxyResponse) -> None:
        location = resp.header("location") or ""
        code = dict(parse_qsl(urlsplit(location).query)).get("code")
        key = _request_key(req)
        authorization = self.authorization_of(req)
        if req.method == "GET" and authorization is not None:
            self.asked[key] = authorization
        authorization = self.asked.get(key, authorization)
        if code and authorization is not None:
            self.codes[code] = Code(code, authorization, self.now())
            self.issued.add(code)

    def authorization_of(self, req: ProxyRequest) -> Authorization | None:
        """The authorization an authorization request (or its consent form) asks for."""
        params = dict(req.query)
        client_id = params.get("client_id")
        role = self.role(client_id)
        if role is None or client_id is None:
            return None
        challenge = params.get("code_challenge")
        method = params.get("code_challenge_method")
        return Authorization(
            client_id=client_id,
            client=client_type(role, params.get("access_type")),
            pkce=pkce_kind(challenge, method),
            method_given=method is not None,
            challenge=challenge,
            redirect_uri=params.get("redirect_uri") or "",
            scope=params.get("scope") or "",
            approval_prompt=params.get("approval_prompt"),
        )

    def _token(self, req: ProxyRequest, resp: ProxyResponse) -> None:
        grant_type = req.param("grant_type")
        data = resp.json() if resp.status == 200 else None
        granted = isinstance(data, dict) and isinstance(data.get("access_token"), str)
        if grant_type == "authorization_code" or (grant_type is None and req.param("code")):
            self._exchange(req, data if granted else None)
        elif grant_type == "refresh_token" and granted:
            self._refresh(req, data)

    def _exchange(self, req: ProxyRequest, data: Any) -> None:
        code = self.codes.get(req.param("code") or "")
        if code is not None and code.used and code.grant is not None:
            code.grant.revoked = True  # a used code presented again
        if data is None:
            return
        authorization = code.authorization if code else self._bare_authorization(req)
        if authorization is None:
            return
        grant = Grant(next(self._ids), authorization)
        self.grants.append(grant)
        if code is not None and not code.used:
            code.used, code.grant = True, grant
        self._issue(data, grant, "code")

    def _bare_authorization(self, req: ProxyRequest) -> Authorization | None:
        """What an exchange of a code the ledger never saw was for (a fault filled it in)."""
        client_id = req.param("client_id")
        role = self.role(client_id)
        if role is None or client_id is None:
            return None
        return Authorization(client_id, client_type(role, None), "none", False, None, "", "", None)

    def _refresh(self, req: ProxyRequest, data: Any) -> None:
        sent = self.tokens.get(req.param("refresh_token") or "")
        if sent is None:
            return
        sent.refreshes += 1
        self._issue(data, sent.grant, "refresh")

    def _issue(self, data: dict[str, Any], grant: Grant, origin: str) -> None:
        now = self.now()
        lifetime = data.get("expires_in")
        lifetime = lifetime if isinstance(lifetime, int) else ACCESS_LIFETIME
        access = str(data["access_token"])
        self.tokens[access] = Token(access, "access", grant, origin, now, lifetime)
        self.issued.add(access)
        refresh = data.get("refresh_token")
        if isinstance(refresh, str) and refresh not in self.tokens:
            self.tokens[refresh] = Token(refresh, "refresh", grant, "code", now)
            self.issued.add(refresh)

    def _revocation(self, req: ProxyRequest) -> None:
        token = self.tokens.get(req.param("token") or "")
        owner = token.grant.authorization.client_id if token else None
        if token is None or req.param("client_id") != owner:
            return
        if token.kind == "refresh" or token.grant.client == "online":
            token.grant.revoked = True
        token.revoked = True

    def _manual_revocation(self, req: ProxyRequest) -> None:
        client_id = req.param("client_id")
        for grant in self.grants:
            if grant.authorization.client_id == client_id:
                grant.revoked = True

    def _user_info(self, req: ProxyRequest, resp: ProxyResponse) -> None:
        self.last_user_info = resp
        token = presented_token(req)
        if token:
            self.answers[token] = resp


def _request_key(req: ProxyRequest) -> tuple[str, ...]:
    params = dict(req.query)
    return tuple(params.get(k) or "" for k in ("client_id", "redirect_uri", "scope", "state"))
