"""What the `browser` driver's Chromium may fetch: nothing by itself.

The deployment's pages run in Chromium, and they decide where the browser goes: a login form
whose `action` names another host, a redirect after consent, a revoke link, a script loading
from elsewhere. So every request Chromium makes is stopped on its way out (Playwright's
routing) and decided here, under the form driver's rule:

* to the service's origin (scheme, host and port): sent by the suite's own HTTP layer, so it
  trusts exactly the profile's CA (or the system's), is paced, bounded and recorded as
  evidence, and its answer handed to Chromium;
* anywhere else: aborted before anything is sent. A plain navigation there is the redirect
  to the application (the code is read from its address, as the form driver reads it); a
  form, or a navigation carrying the password, is stopped and stops the driver; a page's
  resource from elsewhere is dropped. Each attempt except the expected redirect becomes a
  line of the run's summary (`HttpLayer.safety`).

Chromium follows a redirect of an answer it was handed without asking again, so a
navigation's redirect is never handed over: the navigation is aborted and the driver goes to
the redirect's target itself (`pending`), through this gate again. Chromium is started unable
to resolve any host name (steps/consent/browser.py), so a request that routing would miss
(a prefetch, WebRTC) reaches nobody either.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, urlsplit

import httpx

from steps.consent.base import page_headers, redirect_target
from steps.http.evidence import Exchange
from steps.http.layer import HttpLayer

#: Resources the driver never needs: not fetched, even from the service.
UNNEEDED = frozenset({"image", "media", "font"})
#: Request headers Chromium sets that the suite's client sets itself (or must not send).
_OWN_REQUEST_HEADERS = frozenset(
    {"host", "cookie", "content-length", "accept-encoding", "connection", "keep-alive"}
)
#: Answer headers that do not hold for the body handed to Chromium (read, decoded), and the
#: cookies, which the suite's session keeps.
_DROPPED_ANSWER_HEADERS = frozenset(
    {"content-encoding", "content-length", "transfer-encoding", "set-cookie", "connection"}
)
#: Redirects a subresource may take on the service before it is given up.
MAX_RESOURCE_HOPS = 5


def origin_of(url: str) -> str:
    """`scheme://host:port` of an address (the port written out)."""
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme, 0)
    return f"{parts.scheme}://{parts.hostname}:{port}"


@dataclass(frozen=True)
class Hop:
    """Where a navigation's redirect sends the browser, and how (307/308 keep the method)."""

    url: str
    method: str = "GET"
    body: bytes | None = None


class Gate:
    """The browser's one way out: Playwright's route handler (`route`) and what it found."""

    def __init__(self, http: HttpLayer, base_url: str, expected: set[str], password: str) -> None:
        self.http = http
        self.session = http.new_client(cookies=True)
        self._origin = origin_of(base_url)
        self._registered = frozenset(expected)
        #: Origins a navigation may rightly leave for: the applications' redirect URIs (and
        #: the one the request being opened names: `expect_redirect_to`).
        self.expected = set(expected)
        self._password_forms = {f for f in (password, quote(password, safe=""),
                                            quote_plus(password)) if f}  # fmt: skip
        self._override: dict[str, Hop] = {}
        self.reset()

    def reset(self) -> None:
        """Forget what the last action found."""
        #: The address of the application the browser tried to go to (the redirect).
        self.captured: str | None = None
        #: A redirect of the service the driver is to follow.
        self.pending: Hop | None = None
        #: Why the driver must stop: a form or the password on its way elsewhere.
        self.stopped: str | None = None
        #: A request the layer could not make (transport error, an answer out of bounds).
        self.failure: Exception | None = None
        #: Status and headers of the last page the browser was handed.
        self.last: tuple[int, dict[str, str]] = (0, {})

    @property
    def interrupted(self) -> bool:
        """Whether the gate cut the action short (a Playwright error is then expected)."""
        return any(x is not None for x in (self.captured, self.pending, self.stopped, self.failure))

    def is_service(self, url: str) -> bool:
        """Whether an address is on the service's origin."""
        return url.startswith(("http://", "https://")) and origin_of(url) == self._origin

    def expect_redirect_to(self, redirect_uri: str) -> None:
        """The request about to be opened names this redirect URI: the browser may go there
        (the deployment's verdict is for the scenario to judge, not a leak)."""
        self.expected = set(self._registered)
        if redirect_uri.startswith(("http://", "https://")):
            self.expected.add(origin_of(redirect_uri))

    def capture(self, url: str, source: str) -> None:
        """The browser is sent to another origin: its address is kept (the redirect to the
        application), never requested; an origin no application lives at is reported."""
        if self.captured is None:
            self.captured = url
            self.http.record(
                Exchange("GET", url, [], "", error="not sent: the browser was leaving the service")
            )
        if origin_of(url) not in self.expected:
            self._report(f"a navigation to {origin_of(url)} (from {source})")

    def expect(self, hop: Hop) -> None:
        """The next navigation to `hop.url` is sent with its method and body (a 307/308)."""
        self._override[hop.url] = hop

    def close(self) -> None:
        """Drop the browsing session."""
        self.session.close()

    # --- Playwright's handlers ------------------------------------------------------------

    def route(self, route: Any, request: Any) -> None:
        """Every request of the browser: served through the layer, or aborted."""
        from playwright.sync_api import Error as PlaywrightError

        try:
            self._route(route, request)
        except Exception as error:  # never leave Chromium waiting: the driver raises it
            self.failure = self.failure or error
            with contextlib.suppress(PlaywrightError):
                route.abort("failed")

    def websocket(self, socket: Any) -> None:
        """A WebSocket is never connected (the suite does not carry them): closed at once,
        an attempt at another origin reported."""
        if not self.is_service(socket.url):
            self._report(f"a WebSocket to {origin_of(socket.url)}")
        socket.close(code=1008, reason="not carried by the conformance suite")

    # --- internals ------------------------------------------------------------------------

    def _route(self, route: Any, request: Any) -> None:
        url, main = request.url, self._main_navigation(request)
        hop = self._override.pop(url, None) if main else None
        method = hop.method if hop else request.method
        body = hop.body if hop else request.post_data_buffer
        if not self.is_service(url):
            self._leaving(request, main, method, body)
            route.abort("blockedbyclient")
            return
        if request.resource_type in UNNEEDED:
            route.abort("blockedbyclient")
            return
        headers = {
            k: v for k, v in request.headers.items() if k.lower() not in _OWN_REQUEST_HEADERS
        }
        response = self.http.request(
            method, url, client=self.session, headers=headers, content=body, record=main
        )
        target = redirect_target(response)
        if main and target is not None:
            keep = response.status_code in (307, 308)
            self.pending = Hop(target, method if keep else "GET", body if keep else None)
            route.abort("aborted")
            return
        if target is not None:
            followed = self._follow_resource(response, request)
            if followed is None:
                route.abort("blockedbyclient")
                return
            response = followed
        if main:
            self.last = (response.status_code, page_headers(response))
        answer: dict[str, str] = {}
        for name, value in response.headers.multi_items():
            if name.lower() not in _DROPPED_ANSWER_HEADERS:
                answer[name] = f"{answer[name]}, {value}" if name in answer else value
        route.fulfill(status=response.status_code, headers=answer, body=response.content)

    def _follow_resource(self, response: httpx.Response, request: Any) -> httpx.Response | None:
        """A script's or style sheet's redirects on the service (None: it left the service)."""
        for _ in range(MAX_RESOURCE_HOPS):
            target = redirect_target(response)
            if target is None:
                return response
            if not self.is_service(target):
                self._report(f"a {request.resource_type} request to {origin_of(target)}")
                return None
            response = self.http.request("GET", target, client=self.session, record=False)
        return None

    @staticmethod
    def _main_navigation(request: Any) -> bool:
        try:
            return bool(request.is_navigation_request() and request.frame.parent_frame is None)
        except Exception:  # a request of no frame (a worker's): not a navigation
            return False

    def _leaving(self, request: Any, main: bool, method: str, body: bytes | None) -> None:
        """A request to another origin, aborted: the redirect to the application, or an
        attempt to report (and, for a form or the password, a reason to stop)."""
        url = request.url
        fields = _field_names(body)
        carries_password = self._carries_password(url, body)
        if main and method == "GET" and not carries_password:
            self.capture(url, request.frame.url)
            return
        what = f"a {request.resource_type} request ({method})"
        if carries_password or fields:
            names = ", ".join(fields) or "fields"
            what = f"a form ({names}{'; the password' if carries_password else ''}, {method})"
        line = self._report(f"{what} to {origin_of(url)}")
        if main:
            self._record(request, method, body)
            self.stopped = line

    def _carries_password(self, url: str, body: bytes | None) -> bool:
        text = url + (body or b"").decode("utf-8", "replace")
        return any(form in text for form in self._password_forms)

    def _report(self, attempt: str) -> str:
        line = f"The browser driver stopped {attempt} before it was sent: nothing left the suite"
        self.http.report_safety(line)
        return line

    def _record(self, request: Any, method: str, body: bytes | None) -> None:
        self.http.record(
            Exchange(
                method=method,
                url=request.url,
                request_headers=list(request.headers.items()),
                request_body=(body or b"").decode("utf-8", "replace"),
                error="not sent: stopped on its way to another origin",
            )
        )


def _field_names(body: bytes | None) -> list[str]:
    """The names of a form body's fields (none for another kind of body)."""
    if not body:
        return []
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=True)
    except (UnicodeDecodeError, ValueError):
        return []
    return list(dict.fromkeys(name for name, _ in pairs))
