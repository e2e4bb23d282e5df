"""HTTP layer of the suite: one choke point that paces requests, bounds their answers and keeps
redacted evidence.

Every request a scenario makes (API calls and the consent driver's page visits) goes through
`HttpLayer.request`, so the report can show each exchange, and no secret leaves this module
unmasked: values are masked by parameter name (URLs, form and JSON bodies, HTML inputs,
headers) and, as a second net, every secret value seen anywhere is scrubbed from all text.
The layer learns those values from the traffic itself, as it goes: steps register nothing.
What an exchange shows is steps/http/evidence.py's; the masker is the kit's `Redactor`
(`client_kit.redaction`), the one the reports and the kit's logs use too, here knowing every
value in the forms it takes when echoed (steps/safety/secret_forms.py). Every answer is read
within a size limit and a deadline (steps/http/bounded.py): pages 1 MB, the endpoints' answers
64 kB, 20 s per request; beyond either the scenario could not be checked.
"""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterable, Mapping
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx

from steps.http.bounded import ANSWER_LIMIT, PAGE_LIMIT, AnswerUnread, BoundedReader
from steps.http.evidence import SCRUB_MIN_LENGTH, Exchange
from steps.http.readers import EXCHANGE_KEY
from steps.http.throttle import (
    DEFAULT_FAILURES_PER_MINUTE,
    FailureBudget,
    ThrottleWaits,
    client_of,
    is_failure,
)
from steps.safety.secret_forms import EncodedSecrets


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
        answer_paths: Iterable[str] = (),
    ):
        self.verify = ssl.create_default_context(cafile=ca_file)  # one context for all clients
        self.timeout = timeout
        #: Paths of the endpoints whose answers are small JSON (token, revocation, userinfo):
        #: read up to ANSWER_LIMIT; anything else is a page (PAGE_LIMIT).
        self.answer_paths = frozenset(answer_paths)
        self.reader = BoundedReader()
        self.pacer = Pacer(min_interval)
        self.throttle = ThrottleWaits()
        self.budget = FailureBudget(target, failures_per_minute if target else 0)
        #: The run's masker: it learns the secrets from the traffic (steps register nothing).
        self.redactor = EncodedSecrets(min_length=SCRUB_MIN_LENGTH)
        self.exchanges: list[Exchange] = []
        #: Exchanges made before the scenario that it shows because its checks read them (a
        #: shared grant's code exchange, a twin's premise): marked `reused` in its evidence.
        self.reused: set[int] = set()
        #: How the scenario read answers where it was lenient (steps/http/readers.py).
        self.notes: list[str] = []
        #: Requests sent on the wire (retries after throttling included), in all and since the
        #: scenario began: what a run costs a live service.
        self.sent = 0
        self.sent_in_scenario = 0
        #: What the suite kept the deployment from doing, and how it ran (a browser stopped on
        #: its way to another origin, a browser without its sandbox): each once, for the
        #: run's summary.
        self.safety: list[str] = []
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
        exchange.learn(self.redactor)
        return response

    def resend(self, response: httpx.Response) -> httpx.Response:
        """The request of an answer sent again, recorded (a further sample of a cheap check)."""
        request = response.request
        headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
        return self.request(
            request.method, str(request.url), headers=headers, content=request.content
        )

    def _send(
        self, client: httpx.Client, request: httpx.Request, exchange: Exchange
    ) -> httpx.Response:
        """One attempt, its answer (read within the bounds) noted in the exchange."""
        self.pacer.wait()
        self.sent += 1
        self.sent_in_scenario += 1
        try:
            response, received = self.reader.send(client, request, self.limit_of(request))
        except httpx.HTTPError as exc:
            exchange.error = f"{type(exc).__name__}: {exc}"
            raise
        except AnswerUnread as unread:
            exchange.status, exchange.response_headers = unread.status, unread.headers
            exchange.error = unread.reason
            raise
        exchange.status = response.status_code
        response.extensions[EXCHANGE_KEY] = exchange  # readers note how they read it
        exchange.response_headers = received
        exchange.response_body = response.text
        return response

    def limit_of(self, request: httpx.Request) -> int:
        """How much of the answer to `request` the suite reads."""
        path = urlsplit(str(request.url)).path
        return ANSWER_LIMIT if path in self.answer_paths else PAGE_LIMIT

    def _throttled(self, response: httpx.Response, exchange: Exchange) -> bool:
        """Whether the answer was throttling that the suite waited out (send again); raises
        Throttled when it may not wait that long."""
        if not self.throttle.wait(response):
            return False
        exchange.error = None
        return True

    def record(self, exchange: Exchange, *, reused: bool = False) -> None:
        """Add an exchange made elsewhere (a browser's navigation) or earlier (`reused`: a
        shared grant's code exchange, a twin's premise) to the scenario's evidence, once,
        learning the secrets it carries."""
        exchange.learn(self.redactor)
        if exchange not in self.exchanges:
            self.exchanges.append(exchange)
            if reused:
                self.reused.add(id(exchange))

    def report_safety(self, line: str) -> None:
        """Add a line to the run's safety notes (once)."""
        if line not in self.safety:
            self.safety.append(line)

    def begin(self) -> None:
        """Start a scenario's evidence."""
        self.exchanges = []
        self.reused = set()
        self.notes = []
        self.sent_in_scenario = 0

    def note(self, text: str) -> None:
        """Note how the scenario read something leniently that no exchange of it shows."""
        if text not in self.notes:
            self.notes.append(text)

    def scenario_notes(self) -> list[str]:
        """The scenario's notes, its exchanges' included, each once."""
        found = list(self.notes)
        for exchange in self.exchanges:
            found += [n for n in exchange.notes if n not in found]
        return found

    def evidence(self) -> list[dict[str, Any]]:
        """The scenario's exchanges, redacted; those made before it marked `reused` (counting
        the run's requests, skip them: they are in the evidence of the scenario that made
        them)."""
        return [
            exchange.redacted(self.redactor)
            | ({"reused": True} if id(exchange) in self.reused else {})
            for exchange in self.exchanges
        ]

    def close(self) -> None:
        """Close the shared client."""
        self.api.close()


def _text(content: bytes) -> str:
    return content.decode("utf-8", errors="replace")
