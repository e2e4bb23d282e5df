"""HTTP layer of the suite: one choke point that paces requests and keeps redacted evidence.

Every request a scenario makes (API calls and the consent driver's page visits) goes through
`HttpLayer.request`, so the report can show each exchange, and no secret leaves this module
unmasked: values are masked by parameter name (URLs, form and JSON bodies, HTML inputs,
headers) and, as a second net, every secret value seen anywhere is scrubbed from all text.
The layer learns those values from the traffic itself, as it goes: steps register nothing.
The names and the masks are the kit's (`client_kit.redaction`), shared with the reports.
"""

from __future__ import annotations

import html
import json
import ssl
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any
from urllib.parse import parse_qsl, quote_plus, urlencode, urlsplit, urlunsplit

import httpx

from client_kit.redaction import Secrets, is_secret_name
from client_kit.redaction import hint as mask
from steps.html import inputs
from steps.throttle import (
    DEFAULT_FAILURES_PER_MINUTE,
    FailureBudget,
    ThrottleWaits,
    client_of,
    is_failure,
)

#: Bodies are kept whole up to this many characters, beyond it their start and end.
BODY_LIMIT = 200_000
#: Values seen are scrubbed everywhere from this length on (shorter ones would garble text).
SCRUB_MIN_LENGTH = 6


def _mask_pairs(pairs: Iterable[tuple[str, str]], secrets: Secrets) -> str:
    """Re-encode name=value pairs, secret values masked (and left readable, not %-encoded)."""
    out = []
    for name, value in pairs:
        if is_secret_name(name):
            secrets.add(value)
            out.append(f"{quote_plus(name)}={mask(value)}")
        else:
            out.append(f"{quote_plus(name)}={quote_plus(value)}")
    return "&".join(out)


def mask_url(url: str, secrets: Secrets) -> str:
    """Mask secret query parameters (and a userinfo password) of a URL."""
    parts = urlsplit(url)
    query = _mask_pairs(parse_qsl(parts.query, keep_blank_values=True), secrets)
    fragment = parts.fragment
    if "=" in fragment:
        fragment = _mask_pairs(parse_qsl(fragment, keep_blank_values=True), secrets)
    netloc = parts.netloc
    if "@" in netloc and ":" in netloc.split("@", 1)[0]:
        user, rest = netloc.split("@", 1)
        netloc = f"{user.split(':', 1)[0]}:{mask(user.split(':', 1)[1])}@{rest}"
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def _mask_json(value: Any, secrets: Secrets) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if is_secret_name(str(key)) and isinstance(item, str):
                secrets.add(item)
                out[key] = mask(item)
            else:
                out[key] = _mask_json(item, secrets)
        return out
    if isinstance(value, list):
        return [_mask_json(item, secrets) for item in value]
    return value


def _mask_html_inputs(page: str, secrets: Secrets) -> str:
    """Mask the values of inputs named like secrets (a page's CSRF token), as written."""
    for name, value in inputs(page):
        if is_secret_name(name):
            secrets.add(value)
            written = f'value="{html.escape(value)}"'
            page = page.replace(written, f'value="{mask(html.escape(value))}"')
    return page


def mask_body(body: str, content_type: str, secrets: Secrets) -> str:
    """Mask a body by its kind: form fields, JSON members or HTML inputs named like secrets."""
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind == "application/x-www-form-urlencoded":
        return _mask_pairs(parse_qsl(body, keep_blank_values=True), secrets)
    if kind.endswith("json"):
        try:
            return json.dumps(_mask_json(json.loads(body), secrets), ensure_ascii=False)
        except ValueError:
            return body
    if "html" in kind:
        return _mask_html_inputs(body, secrets)
    return body


def _mask_cookie_pairs(pairs: str, secrets: Secrets) -> str:
    masked = []
    for pair in pairs.split(";"):
        key, eq, val = pair.strip().partition("=")
        secrets.add(val)
        masked.append(f"{key}={mask(val)}" if eq else pair.strip())
    return "; ".join(masked)


def _mask_header(name: str, value: str, secrets: Secrets) -> str:
    lname = name.lower()
    if lname in ("authorization", "proxy-authorization"):
        scheme, _, credentials = value.partition(" ")
        secrets.add(credentials)
        return f"{scheme} {mask(credentials)}" if credentials else mask(value)
    if lname == "cookie":
        return _mask_cookie_pairs(value, secrets)
    if lname == "set-cookie":
        first, sep, attributes = value.partition(";")
        return _mask_cookie_pairs(first, secrets) + sep + attributes
    if lname in ("location", "content-location", "referer"):
        return mask_url(value, secrets)
    return value


def mask_headers(headers: Iterable[tuple[str, str]], secrets: Secrets) -> dict[str, str]:
    """Mask credentials, cookies and secret query parameters of redirect targets."""
    out: dict[str, str] = {}
    for name, value in headers:
        masked = _mask_header(name, value, secrets)
        out[name] = f"{out[name]}, {masked}" if name in out else masked
    return out


@dataclass
class Exchange:
    """One request and its response (or the transport error that replaced it), unmasked."""

    method: str
    url: str
    request_headers: list[tuple[str, str]]
    request_body: str
    status: int | None = None
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    response_body: str = ""
    error: str | None = None

    def learn(self, secrets: Secrets) -> None:
        """Remember the secret values of this exchange (by field name), so that they are
        scrubbed from every exchange of the run, before and after this one."""
        self._masked(secrets)

    def redacted(self, secrets: Secrets) -> dict[str, Any]:
        """The contract's evidence shape, masked structurally and then by known values."""
        return {k: _scrub_tree(v, secrets) for k, v in self._masked(secrets).items()}

    def _masked(self, secrets: Secrets) -> dict[str, Any]:
        """The evidence shape masked by field name (the values met are added to secrets)."""
        req_type = dict((k.lower(), v) for k, v in self.request_headers).get("content-type", "")
        resp_type = dict((k.lower(), v) for k, v in self.response_headers).get("content-type", "")
        request = {
            "method": self.method,
            "url": mask_url(self.url, secrets),
            "headers": mask_headers(self.request_headers, secrets),
            "body": mask_body(self.request_body, req_type, secrets),
        }
        response: dict[str, Any] = {
            "status": self.status,
            "headers": mask_headers(self.response_headers, secrets),
            "body": clip(mask_body(self.response_body, resp_type, secrets)),
        }
        if self.error:
            response["error"] = self.error
        return {"request": request, "response": response}


def clip(text: str, limit: int = BODY_LIMIT) -> str:
    """The text whole, or its start and end when longer than limit (the end of an error page
    often names the error)."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n… ({len(text) - 2 * half} characters left out) …\n{text[-half:]}"


def _scrub_tree(value: Any, secrets: Secrets) -> Any:
    if isinstance(value, str):
        return secrets.scrub(value)
    if isinstance(value, dict):
        return {k: _scrub_tree(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_tree(v, secrets) for v in value]
    return value


class Pacer:
    """Keeps at least `min_interval` seconds between requests, to be gentle with a live service."""

    def __init__(self, min_interval: float) -> None:
        self.min_interval = max(0.0, min_interval)
        self._last = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        """Sleep until the next request may go out."""
        if not self.min_interval:
            return
        with self._lock:
            delay = self._last + self.min_interval - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self._last = time.monotonic()


class HttpLayer:
    """httpx clients for the suite, with pacing, throttling waits and per-scenario evidence."""

    def __init__(
        self,
        ca_file: str | None,
        min_interval: float = 0.0,
        timeout: float = 15.0,
        *,
        target: str = "",
        failures_per_minute: int = DEFAULT_FAILURES_PER_MINUTE,
    ):
        self.verify = ssl.create_default_context(cafile=ca_file)  # one context for all clients
        self.timeout = timeout
        self.pacer = Pacer(min_interval)
        self.throttle = ThrottleWaits()
        self.budget = FailureBudget(target, failures_per_minute if target else 0)
        self.secrets = Secrets(min_length=SCRUB_MIN_LENGTH)
        self.exchanges: list[Exchange] = []
        self.api = self.new_client()

    def new_client(self, *, cookies: bool = False) -> httpx.Client:
        """A client that reuses its TLS connections; `cookies` for a browsing session."""
        jar = None if cookies else CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))
        return httpx.Client(
            verify=self.verify, timeout=self.timeout, follow_redirects=False, cookies=jar
        )

    def request(
        self,
        method: str,
        url: str,
        *,
        client: httpx.Client | None = None,
        data: Mapping[str, str] | list[tuple[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str] | None = None,
        content: str | bytes | None = None,
        record: bool = True,
    ) -> httpx.Response:
        """Send one request, record it (unless told not to: bookkeeping such as reading the
        test clock is not evidence), and return the response (transport errors re-raised)."""
        client = client or self.api
        body: Any = (
            urlencode(list(data.items()) if isinstance(data, Mapping) else data)
            if (data is not None)
            else content
        )
        hdrs = dict(headers or {})
        if data is not None:
            hdrs.setdefault("Content-Type", "application/x-www-form-urlencoded")
        request = client.build_request(method, url, headers=hdrs, params=params, content=body)
        exchange = Exchange(
            method=method,
            url=str(request.url),
            request_headers=list(request.headers.items()),
            request_body=_text(request.content),
        )
        if record:
            self.exchanges.append(exchange)
        client_id = client_of(request)
        self.budget.wait_turn(client_id)
        response = self._send(client, request, exchange)
        while self._throttled(response, exchange):
            response = self._send(client, request, exchange)
        if is_failure(response):
            self.budget.record(client_id)
        exchange.learn(self.secrets)
        return response

    def _send(
        self, client: httpx.Client, request: httpx.Request, exchange: Exchange
    ) -> httpx.Response:
        """One attempt, its answer noted in the exchange."""
        self.pacer.wait()
        try:
            response = client.send(request)
        except httpx.HTTPError as exc:
            exchange.error = f"{type(exc).__name__}: {exc}"
            raise
        response.read()
        exchange.status = response.status_code
        exchange.response_headers = list(response.headers.items())
        exchange.response_body = response.text
        return response

    def _throttled(self, response: httpx.Response, exchange: Exchange) -> bool:
        """Whether the answer was throttling that the suite waited out (send again); raises
        Throttled when it may not wait that long."""
        if not self.throttle.wait(response):
            return False
        exchange.error = None
        return True

    def record(self, exchange: Exchange) -> None:
        """Add an exchange made elsewhere (a browser's navigation, a shared grant's code
        exchange) to the scenario's evidence, once, learning the secrets it carries."""
        exchange.learn(self.secrets)
        if exchange not in self.exchanges:
            self.exchanges.append(exchange)

    def begin(self) -> None:
        """Start a scenario's evidence."""
        self.exchanges = []

    def evidence(self) -> list[dict[str, Any]]:
        """The scenario's exchanges, redacted."""
        return [exchange.redacted(self.secrets) for exchange in self.exchanges]

    def close(self) -> None:
        """Close the shared client."""
        self.api.close()


def _text(content: bytes) -> str:
    return content.decode("utf-8", errors="replace")
