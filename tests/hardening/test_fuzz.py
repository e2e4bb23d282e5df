"""Property-based fuzzing of every endpoint: whatever arrives, no 5xx and no traceback.

Parameters are drawn from the names each endpoint knows plus random ones, repeated at will,
with values that are valid credentials and tokens, random text, non-UTF-8 bytes (raw or
percent-encoded) and huge values; bodies come with right and wrong content types, and with
random Authorization and Cookie headers (a real session among them). The server is our own
and runs over TLS; its log is read after each endpoint.

Over 300 lines on purpose: one property-based fuzzer; its strategies, its encoders and the
server they aim at are one concept, and the tests are a few lines each over them.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote_from_bytes

import httpx
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from reference_server.launcher import ServerProcess
from tests.support.user_agent import find_form

from .helpers import World, log_problems, provision, session_csrf, tokens

OAUTH_NAMES = [
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
    "access_type",
    "approval_prompt",
    "grant_type",
    "code",
    "client_secret",
    "refresh_token",
    "token",
    "token_type",
    "token_type_hint",
    "code_verifier",
    "access_token",
    "csrf_token",
    "decision",
]
PAGE_NAMES = [
    "username",
    "password",
    "csrf_token",
    "returnto",
    "name",
    "type",
    "redirect_uri",
    "client_id",
    "scope",
    "revoked",
    "code",
    "state",
]
CONTENT_TYPES = [
    "application/x-www-form-urlencoded",
    "application/x-www-form-urlencoded; charset=utf-8",
    "application/x-www-form-urlencoded; charset=latin-1",
    "APPLICATION/X-WWW-FORM-URLENCODED",
    "application/x-www-form-urlencoded;",
    "application/json",
    "multipart/form-data; boundary=xyz",
    "multipart/form-data",
    "text/plain",
    "",
    None,
]

# (method, path, parameter names, max examples): the OAuth endpoints get the most examples.
# Order matters: forms that can end the session or reset a secret come last.
ENDPOINTS = [
    ("POST", "/oauth2/token", OAUTH_NAMES, 100),
    ("POST", "/oauth2/revoke", OAUTH_NAMES, 100),
    ("GET", "/oauth2/authorize", OAUTH_NAMES, 100),
    ("POST", "/oauth2/authorize", OAUTH_NAMES, 100),
    ("GET", "/oauth2/userinfo", OAUTH_NAMES, 100),
    ("POST", "/oauth2/userinfo", OAUTH_NAMES, 100),
    ("GET", "/oauth2/oob", OAUTH_NAMES, 25),
    ("GET", "/", PAGE_NAMES, 25),
    ("GET", "/login", PAGE_NAMES, 25),
    ("POST", "/login", PAGE_NAMES, 25),
    ("GET", "/user/{segment}", PAGE_NAMES, 25),
    ("GET", "/account/authorized", PAGE_NAMES, 25),
    ("GET", "/account/applications", PAGE_NAMES, 25),
    ("POST", "/account/applications", PAGE_NAMES, 25),
    ("POST", "/account/authorized/revoke", PAGE_NAMES, 25),
    ("GET", "/_test/clock", PAGE_NAMES, 25),
    ("GET", "/static/site.css", PAGE_NAMES, 25),
    ("{method}", "/oauth2/token", OAUTH_NAMES, 25),
    ("POST", "/account/applications/reset-secret", PAGE_NAMES, 25),
    ("POST", "/logout", PAGE_NAMES, 25),
]


@dataclass
class Target:
    site: World
    http: httpx.Client
    known: list[str]  # valid credentials, tokens, URIs: values the server will accept
    cookie: str


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    data_dir = tmp_path_factory.mktemp("fuzz") / "data"
    with ServerProcess(data_dir, test_clock=True) as server:
        site = provision(server)
        browser = site.agent()
        with site.http() as http:
            issued = tokens(http, browser, site.installed, scope="profile email")
            consent = browser.open_authorize(
                {
                    "response_type": "code",
                    "client_id": site.web.client_id,
                    "redirect_uri": site.web.redirect_uri,
                    "scope": "profile",
                }
            )
            known = [
                site.web.client_id,
                site.web.client_secret,
                site.web.redirect_uri,
                site.installed.client_id,
                site.installed.client_secret,
                site.installed.redirect_uri,
                "urn:ietf:wg:oauth:2.0:oob",
                issued["access_token"],
                issued["refresh_token"],
                session_csrf(browser),
                find_form(consent.text, "consent-form").csrf_token,
                "code",
                "authorization_code",
                "refresh_token",
                "profile email tag",
                "S256",
                "plain",
                "offline",
                "force",
                "approve",
                "deny",
                "bearer",
                "confidential",
                "public",
                site.username,
                site.password,
                "/account/authorized",
                "x" * 43,
            ]
            cookie = f"__Host-mb-session={browser.http.cookies['__Host-mb-session']}"
            with httpx.Client(
                base_url=server.base_url, verify=server.ssl_context(), timeout=30
            ) as fuzz_http:
                yield Target(site, fuzz_http, known, cookie)
        browser.close()


# --- strategies -------------------------------------------------------------------------------

_HEADER_CHARS = st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f")


def _value_bytes(known_index: st.SearchStrategy[int]) -> st.SearchStrategy[tuple[str, object]]:
    """A value, tagged by kind: ('known', index), ('text', str), ('bytes', b), ('huge', n)."""
    return st.one_of(
        known_index.map(lambda i: ("known", i)),
        st.text(max_size=40).map(lambda t: ("text", t)),
        st.binary(max_size=40).map(lambda b: ("bytes", b)),
        st.sampled_from(
            [
                "",
                "%",
                "%zz",
                "%ff%fe",
                "+",
                "&",
                "=",
                "%00",
                "\x00",
                "a=b&c",
                "%C0%AF",
                "%ED%A0%80",
                "\ud800",
                "\u202e",
                "🎵",
            ]
        ).map(lambda t: ("text", t)),
        st.integers(min_value=4_000, max_value=40_000).map(lambda n: ("huge", n)),
    )


def requests(names: list[str], n_known: int) -> st.SearchStrategy[dict]:
    """One request's ingredients; strategies built once per endpoint (drawing is the cost)."""
    known = st.integers(0, n_known - 1)
    name = st.one_of(st.sampled_from(names), st.text(max_size=12))
    pair = st.tuples(name, _value_bytes(known))
    authorization = st.one_of(
        st.none(),
        st.sampled_from(["Bearer", "Basic", "Bearer ", "Digest x", "bearer"]),
        st.tuples(st.sampled_from(["Bearer ", "Basic ", "BEARER ", ""]), known).map(
            lambda t: ("known", t)
        ),
        st.binary(max_size=60).map(lambda b: "Basic " + base64.b64encode(b).decode()),
        st.text(_HEADER_CHARS, max_size=80),
    )
    return st.fixed_dictionaries(
        {
            "query_pairs": st.lists(pair, max_size=4),
            "pairs": st.lists(pair, max_size=8),
            "raw": st.booleans(),
            "content_type": st.one_of(
                st.sampled_from(CONTENT_TYPES), st.text(_HEADER_CHARS, max_size=40)
            ),
            "authorization": authorization,
            "cookie": st.one_of(st.none(), st.just("session"), st.text(_HEADER_CHARS, max_size=60)),
            "segment": st.one_of(
                st.text(max_size=20), st.sampled_from(["alice", "%ff", "..", "%2e%2e%2f"])
            ),
            "method": st.sampled_from(["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]),
        }
    )


def _encode(value: tuple[str, object], known: list[str], raw: bool) -> bytes:
    kind, item = value
    if kind == "known":
        data = known[item].encode()  # type: ignore[index]
    elif kind == "huge":
        data = b"A" * item  # type: ignore[operator]
    elif kind == "bytes":
        data = item  # type: ignore[assignment]
    else:
        data = str(item).encode("utf-8", "surrogatepass")
    return data if raw else quote_from_bytes(data, safe="").encode()


def _query(pairs, known: list[str]) -> str:
    # A request target must be ASCII: always percent-encoded.
    return "&".join(
        quote_from_bytes(k.encode("utf-8", "surrogatepass"), safe="")
        + "="
        + _encode(v, known, raw=False).decode()
        for k, v in pairs
    )


def _body(pairs, known: list[str], raw: bool) -> bytes:
    return b"&".join(
        (
            k.encode("utf-8", "surrogatepass")
            if raw
            else quote_from_bytes(k.encode("utf-8", "surrogatepass"), safe="").encode()
        )
        + b"="
        + _encode(v, known, raw)
        for k, v in pairs
    )


def _send(target: Target, method: str, path: str, example: dict) -> httpx.Response:
    known = target.known
    headers: dict[str, bytes] = {}
    if example["content_type"] is not None:
        headers["content-type"] = example["content_type"].encode("latin-1")
    auth = example["authorization"]
    if isinstance(auth, tuple):
        scheme, index = auth[1]
        auth = scheme + known[index]
    if auth is not None:
        headers["authorization"] = auth.encode("latin-1")
    cookie = example["cookie"]
    if cookie is not None:
        headers["cookie"] = (target.cookie if cookie == "session" else cookie).encode("latin-1")
    method = example["method"] if method == "{method}" else method
    path = path.replace(
        "{segment}", quote_from_bytes(example["segment"].encode("utf-8", "surrogatepass"), safe="%")
    )
    query = _query(example["query_pairs"], known)
    url = path + ("?" + query if query else "")
    body = _body(example["pairs"], known, example["raw"]) if method != "GET" else b""
    try:
        return target.http.request(method, url, content=body, headers=headers)
    except (httpx.LocalProtocolError, httpx.InvalidURL):
        reject()  # a request no client could send (httpx refuses to build it)
        raise


@pytest.mark.parametrize(
    ("method", "path", "names", "examples"), ENDPOINTS, ids=[f"{m} {p}" for m, p, _, _ in ENDPOINTS]
)
def test_endpoint_survives_fuzzing(target: Target, method, path, names, examples):
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
    )
    @given(example=requests(names, len(target.known)))
    def fuzz(example: dict) -> None:
        answer = _send(target, method, path, example)
        assert answer.status_code < 500, f"{answer.status_code}: {answer.text[:300]}"

    offset = target.site.log_path.stat().st_size  # judge only this endpoint's log lines
    fuzz()
    with target.site.log_path.open("rb") as log:
        log.seek(offset)
        problems = log_problems(log.read().decode(errors="replace"))
    assert not problems, "\n".join(problems[:30])


# Inputs that once broke the server, sent to every endpoint on every run (not left to chance).
REGRESSIONS = [
    b"%C4%80=%00",  # a non-Latin-1 parameter name echoed into WWW-Authenticate
    b"%22%5C=%00",  # quote and backslash in a name, inside a quoted-string header
    b"%E2%80%AE=%00&%E2%80%AE=1",
    b"access_token=%00",
    b"%FF=%FE",
    b"a=%C0%AF",
]


@pytest.mark.parametrize(
    ("method", "path"), [(m, p) for m, p, _, _ in ENDPOINTS if "{" not in m + p]
)
def test_known_bad_inputs_get_4xx(target: Target, method: str, path: str):
    offset = target.site.log_path.stat().st_size
    for body in REGRESSIONS:
        query = body.decode()
        for content in (b"", body):
            answer = target.http.request(
                method,
                f"{path}?{query}",
                content=content,
                headers={
                    "content-type": "application/x-www-form-urlencoded",
                    "cookie": target.cookie,
                },
            )
            assert answer.status_code < 500, (body, answer.status_code)
            if method == "POST":
                answer = target.http.request(
                    method,
                    path,
                    content=body,
                    headers={"content-type": "application/x-www-form-urlencoded"},
                )
                assert answer.status_code < 500, (body, answer.status_code)
    with target.site.log_path.open("rb") as log:
        log.seek(offset)
        problems = log_problems(log.read().decode(errors="replace"))
    assert not problems, "\n".join(problems[:30])


@pytest.mark.parametrize(
    "shape",
    ["huge cookie", "huge authorization", "huge query", "many headers", "many parameters"],
)
def test_oversized_requests_are_refused_cleanly(target: Target, shape: str):
    """Limits, not crashes: a 4xx or a closed connection, never a 5xx or a traceback."""
    offset = target.site.log_path.stat().st_size
    form = {"content-type": "application/x-www-form-urlencoded"}
    requests_to_send = {
        "huge cookie": ("GET", "/account/authorized", {"cookie": "a=" + "b" * 100_000}, b""),
        "huge authorization": (
            "GET",
            "/oauth2/userinfo",
            {"authorization": "Bearer " + "t" * 100_000},
            b"",
        ),
        "huge query": ("GET", "/oauth2/authorize?state=" + "s" * 60_000, {}, b""),
        "many headers": (
            "POST",
            "/oauth2/token",
            {**form, **{f"x-h{i}": "v" for i in range(500)}},
            b"grant_type=x",
        ),
        "many parameters": (
            "POST",
            "/oauth2/token",
            form,
            b"&".join(b"p%d=v" % i for i in range(3000)),
        ),
    }
    method, url, headers, body = requests_to_send[shape]
    with httpx.Client(
        base_url=target.site.server.base_url, verify=target.site.server.ssl_context()
    ) as fresh:
        try:
            answer = fresh.request(method, url, headers=headers, content=body)
        except httpx.RemoteProtocolError:
            answer = None  # the server hung up: acceptable for a request past its limits
    if answer is not None:
        assert answer.status_code < 500, answer.status_code
    with target.site.log_path.open("rb") as log:
        log.seek(offset)
        problems = log_problems(log.read().decode(errors="replace"))
    assert not problems, "\n".join(problems[:30])
