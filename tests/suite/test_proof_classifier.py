"""The classifier of the generated proof (tests/suite/proof/classify.py) on hand-made
exchanges noted in a ledger, as the proxy sees them: a token's client, origin and delivery, a
code's or token's invalidity, a secret's endpoint, client and near miss, an authorization
request's error, state and PKCE."""

from __future__ import annotations

from tests.suite.broken.exchange import FORM, ProxyRequest, ProxyResponse
from tests.suite.broken.registry import AUTHORIZE, CLOCK, REVOKE, TOKEN, USERINFO
from tests.suite.proof.classify import classify
from tests.suite.proof.ledger import Ledger
from tests.suite.proof.presented import Request
from tests.suite.test_proof_resemblance import INSTALLED, OTHER, PROFILE, WEB

# --- the ledger: clients, origins, deliveries, invalidity ----------------------------------


def _form(path: str, **fields: str) -> ProxyRequest:
    req = ProxyRequest("POST", path, [], [("content-type", FORM)])
    req.set_form(list(fields.items()))
    return req


def _json(status: int, data: dict[str, object]) -> ProxyResponse:
    resp = ProxyResponse(status)
    resp.set_json(data)
    return resp


class Flow:
    """Hand-made exchanges noted in a ledger, as the proxy would see them."""

    def __init__(self) -> None:
        self.ledger = Ledger.of(PROFILE, {})
        self.count = 0

    def _new(self, kind: str) -> str:
        self.count += 1
        return f"{kind}-{self.count:04d}-aaaaaaaaaaaaaaaaaaaaaaaa"

    def code(self, client: dict[str, str], challenge: str | None = "c" * 43, **extra: str) -> str:
        query = [("response_type", "code"), ("client_id", client["client_id"])]
        query += [("redirect_uri", client["redirect_uri"]), ("scope", "profile email")]
        query += (
            [("code_challenge", challenge), ("code_challenge_method", "S256")] if challenge else []
        )
        query += [("state", "st-1"), *extra.items()]
        code = self._new("code")
        location = f"{client['redirect_uri']}?code={code}&state=st-1"
        self.ledger.observe(
            ProxyRequest("GET", AUTHORIZE, query, []), ProxyResponse(302, [("location", location)])
        )
        return code

    def exchange(self, client: dict[str, str], code: str) -> tuple[str, str | None]:
        req = self.exchange_request(client, code)
        access, refresh = self._new("access"), self._new("refresh")
        offline = client is INSTALLED or self.ledger.codes[code].authorization.client == "offline"
        data: dict[str, object] = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": 3600,
        }
        data |= {"refresh_token": refresh} if offline else {}
        self.ledger.observe(req, _json(200, data))
        return access, refresh if offline else None

    def exchange_request(self, client: dict[str, str], code: str, **changes: str) -> ProxyRequest:
        fields = {
            "grant_type": "authorization_code",
            "code": code,
            "client_id": client["client_id"],
        }
        fields |= {"client_secret": client["client_secret"], "redirect_uri": client["redirect_uri"]}
        return _form(TOKEN, **(fields | changes))

    def refresh(self, client: dict[str, str], refresh: str) -> str:
        req = self.refresh_request(client, refresh)
        access = self._new("access")
        data = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": 3600,
            "refresh_token": refresh,
        }
        self.ledger.observe(req, _json(200, data))
        return access

    def refresh_request(self, client: dict[str, str], refresh: str, **changes: str) -> ProxyRequest:
        fields = {"grant_type": "refresh_token", "refresh_token": refresh}
        fields |= {"client_id": client["client_id"], "client_secret": client["client_secret"]}
        return _form(TOKEN, **(fields | changes))

    def revoke(self, client: dict[str, str], token: str) -> None:
        req = _form(
            REVOKE,
            token=token,
            client_id=client["client_id"],
            client_secret=client["client_secret"],
        )
        self.ledger.observe(req, ProxyResponse(200))

    def values(self, req: ProxyRequest) -> dict[str, str]:
        return classify(Request(req, self.ledger))


def _userinfo(token: str, way: str = "header") -> ProxyRequest:
    if way == "header":
        return ProxyRequest("GET", USERINFO, [], [("authorization", f"Bearer {token}")])
    if way == "query":
        return ProxyRequest("GET", USERINFO, [("access_token", token)], [])
    return _form(USERINFO, access_token=token)


def test_a_token_tells_its_client_and_origin_and_the_way_it_travels() -> None:
    flow = Flow()
    online, _ = flow.exchange(WEB, flow.code(WEB))
    offline, refresh = flow.exchange(WEB, flow.code(WEB, access_type="offline"))
    installed, installed_refresh = flow.exchange(INSTALLED, flow.code(INSTALLED, challenge=None))
    assert refresh and installed_refresh
    refreshed = flow.refresh(INSTALLED, installed_refresh)
    cases = [
        (
            online,
            "header",
            {"client": "online", "origin": "code", "delivery": "header", "pkce": "S256"},
        ),
        (offline, "body", {"client": "offline", "origin": "code", "delivery": "body"}),
        (installed, "query", {"client": "installed", "origin": "code", "pkce": "none"}),
        (refreshed, "header", {"client": "installed", "origin": "refresh", "invalidity": "-"}),
    ]
    for token, way, wanted in cases:
        values = flow.values(_userinfo(token, way))
        assert {k: values[k] for k in wanted} == wanted, (token, way, values)


def test_a_token_sent_two_ways_tells_both() -> None:
    flow = Flow()
    token, _ = flow.exchange(WEB, flow.code(WEB))
    req = _userinfo(token)
    req.query = [("access_token", token)]
    assert (flow.values(req)["delivery"], flow.values(req)["two_ways"]) == (
        "header|query",
        "header_query",
    )


def test_a_near_miss_token_is_traced_to_the_token_it_is_near() -> None:
    flow = Flow()
    _, refresh = flow.exchange(WEB, flow.code(WEB, access_type="offline"))
    assert refresh
    refreshed = flow.refresh(WEB, refresh)
    values = flow.values(_userinfo(refreshed[:-1], "query"))
    assert values["invalidity"] == "truncated"
    assert (values["client"], values["origin"], values["delivery"]) == (
        "offline",
        "refresh",
        "query",
    )
    unknown = flow.values(_userinfo("never-issued-xxxxxxxxxxxxxxxx"))
    assert (unknown["invalidity"], unknown["client"], unknown["origin"]) == ("unknown", "-", "-")


def test_used_foreign_revoked_and_expired() -> None:
    flow = Flow()
    code = flow.code(WEB)
    access, _ = flow.exchange(WEB, code)
    assert flow.values(flow.exchange_request(WEB, code))["invalidity"] == "used"
    foreign = flow.code(WEB)
    values = flow.values(flow.exchange_request(OTHER, foreign))
    assert (values["invalidity"], values["client"]) == ("foreign", "online")
    _, refresh = flow.exchange(INSTALLED, flow.code(INSTALLED))
    assert refresh
    flow.revoke(INSTALLED, refresh)
    assert flow.values(flow.refresh_request(INSTALLED, refresh))["invalidity"] == "revoked"
    clock = ProxyRequest("POST", CLOCK, [], [])
    flow.ledger.observe(clock, _json(200, {"offset": 3700, "now": 0}))
    assert flow.values(_userinfo(access))["invalidity"] == "expired"


def test_a_secret_is_classified_by_endpoint_client_and_near_miss() -> None:
    flow = Flow()
    _, refresh = flow.exchange(INSTALLED, flow.code(INSTALLED))
    assert refresh
    secret = INSTALLED["client_secret"]
    values = flow.values(flow.refresh_request(INSTALLED, refresh, client_secret=secret + "7"))
    assert (values["endpoint"], values["client"], values["near_miss"]) == (
        "refresh",
        "installed",
        "extended",
    )
    code = flow.code(WEB, access_type="offline")
    values = flow.values(flow.exchange_request(WEB, code, client_secret=""))
    assert (values["endpoint"], values["client"], values["near_miss"]) == (
        "exchange",
        "offline",
        "empty",
    )
    req = _form(
        REVOKE, token=refresh, client_id=INSTALLED["client_id"], client_secret=secret.upper()
    )
    values = flow.values(req)
    assert (values["endpoint"], values["near_miss"], values["token_kind"]) == (
        "revoke",
        "case",
        "refresh",
    )


def test_an_authorization_request_tells_its_error_state_and_pkce() -> None:
    flow = Flow()
    base = [("client_id", WEB["client_id"]), ("redirect_uri", WEB["redirect_uri"])]
    cases = [
        ([("response_type", "token"), ("scope", "profile")], "unsupported_response_type"),
        ([("response_type", "code"), ("scope", "profile nonsense")], "invalid_scope"),
        ([("response_type", "code"), ("scope", "Profile")], "invalid_scope"),
        (
            [
                ("response_type", "code"),
                ("scope", "profile"),
                ("code_challenge", "c" * 43),
                ("code_challenge_method", "S512"),
            ],
            "invalid_request",
        ),
        (
            [
                ("response_type", "code"),
                ("scope", "profile"),
                ("code_challenge", "c" * 42),
                ("code_challenge_method", "S256"),
            ],
            "invalid_request",
        ),
        ([("response_type", "code"), ("scope", "profile")], "-"),
    ]
    for query, error in cases:
        req = ProxyRequest("GET", AUTHORIZE, [*base, *query, ("state", "a b&c")], [])
        values = flow.values(req)
        assert (values["error"], values["state"], values["client"]) == (
            error,
            "reserved",
            "online",
        ), query
    deny = ProxyRequest(
        "POST",
        AUTHORIZE,
        [*base, ("response_type", "code"), ("scope", "profile")],
        [("content-type", FORM)],
    )
    deny.set_form([("csrf_token", "x"), ("decision", "deny")])
    assert flow.values(deny)["error"] == "access_denied"
    elsewhere = ProxyRequest(
        "GET",
        AUTHORIZE,
        [
            ("client_id", WEB["client_id"]),
            ("redirect_uri", "https://attacker.example/callback"),
            ("response_type", "token"),
        ],
        [],
    )
    assert flow.values(elsewhere)["error"] == "-"  # shown on the service's page, no redirect


def test_a_revocation_without_a_token_names_any_kind() -> None:
    flow = Flow()
    req = _form(REVOKE, client_id=WEB["client_id"], client_secret=WEB["client_secret"])
    values = flow.values(req)
    assert (values["missing"], values["token_kind"]) == ("token", "*")
