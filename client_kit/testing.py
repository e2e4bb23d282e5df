"""Play the user on the bundled server's pages, for an application's own tests.

An application that embeds the kit tests its login against the bundled reference server
(``mb-oauth-server``), and someone has to answer the pages a person answers in the browser.
:class:`BundledServerUser` does, with plain HTTP: it opens what the login asks the browser to
open (the loopback listener's launcher, or the authorization URL), logs in on the server's
login form, answers its consent form, and delivers the redirect to the loopback listener as
a browser would (or reads the code the out-of-band page shows)::

    from client_kit import Session
    from client_kit.testing import BundledServerUser

    user = BundledServerUser("https://127.0.0.1:8443", "alice", "password", ca_bundle=ca)
    handle = session.start_login(["profile"], open_browser=False)
    ...  # on its authorization_url event:
    user.approve(event.browser_url)
    handle.wait(30)

It knows the bundled server's own pages (``form#login-form``, ``form#consent-form``,
``code#oob-code``); it is no browser for other services. The password goes to the server's
origin only: a form that posts elsewhere, or a redirect to another origin that is not the
loopback listener, ends the walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Literal
from urllib.parse import parse_qsl, urljoin, urlsplit

from client_kit import profiles

if TYPE_CHECKING:
    import httpx

Choice = Literal["approve", "deny"]
#: redirects and form posts one walk may take before it gives up
MAX_HOPS = 12
_LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")


class ConsentError(AssertionError):
    """The pages did not lead where a person approving or denying would have gone (an
    AssertionError, so that a test reports it as a failure, not an error of the test)."""


@dataclass(frozen=True)
class ConsentOutcome:
    """Where the walk ended."""

    #: where the service sent the browser (the redirect URI with its query), or the
    #: out-of-band page's URL
    redirect_url: str
    #: the code of the redirect, or the one the out-of-band page shows (None after a denial)
    code: str | None = None
    #: the loopback listener's answer to the delivered redirect (None: not delivered)
    delivered_status: int | None = None
    params: dict[str, str] = field(default_factory=dict)

    @property
    def oob(self) -> bool:
        return self.delivered_status is None and urlsplit(self.redirect_url).path == OOB_PATH


OOB_PATH = "/oauth2/oob"


class BundledServerUser:
    """One account of the bundled server, answering its login and consent pages."""

    def __init__(
        self,
        base_url: str,
        username: str,
        password: str,
        *,
        ca_bundle: str | None = None,
        timeout: float = 30.0,
    ) -> None:
        """``ca_bundle``: the CA file the server printed at start (``srv/ca.pem``)."""
        self.profile = profiles.custom(base_url, ca_bundle=ca_bundle)
        self.username = username
        self.password = password
        self.timeout = timeout
        parts = urlsplit(self.profile.base_url)
        self._origin = (parts.scheme, parts.netloc)

    def approve(self, url: str, *, deliver: bool = True) -> ConsentOutcome:
        """Open ``url``, log in, allow access. ``deliver``: send the redirect on to the
        loopback listener (False: only return it, e.g. for a test that pastes it)."""
        return self._walk(url, "approve", deliver)

    def deny(self, url: str, *, deliver: bool = True) -> ConsentOutcome:
        """Open ``url``, log in, refuse access (the login ends with ``access_denied``)."""
        return self._walk(url, "deny", deliver)

    # -- the walk ----------------------------------------------------------------------

    def _walk(self, url: str, decision: Choice, deliver: bool) -> ConsentOutcome:
        import httpx

        with httpx.Client(verify=self.profile.ssl_context(), timeout=self.timeout) as client:
            method, data, signed_in = "GET", None, False
            for _ in range(MAX_HOPS):
                if _is_loopback(url):
                    response = client.get(url)
                    if response.is_redirect and _is_launcher(url):
                        url = _location(response)
                        continue
                    return _outcome(url, response.status_code)
                if not self._on_server(url):
                    return _outcome(url)  # the app's own redirect URI: returned, never opened
                response = client.request(method, url, data=data)
                method, data = "GET", None
                if response.is_redirect:
                    url = _location(response)
                    if _is_loopback(url) and not deliver:
                        return _outcome(url)
                    continue
                page = _Page.read(response.text)
                if page.oob_code is not None and urlsplit(url).path == OOB_PATH:
                    return ConsentOutcome(url, page.oob_code, None, _query(url))
                form, values = self._answer(page, decision, signed_in)
                if form.get("id") == "login-form":
                    signed_in = True
                method, url, data = "POST", self._action(form, str(response.url)), values
            raise ConsentError(f"more than {MAX_HOPS} pages or redirects from {url}")

    def _answer(
        self, page: _Page, decision: Choice, signed_in: bool
    ) -> tuple[_Form, dict[str, str]]:
        """The form to post on ``page`` and its fields."""
        login = page.forms.get("login-form")
        if login is not None:
            if signed_in:
                raise ConsentError(f"the bundled server refused the login as {self.username!r}")
            return login, {**login.fields, "username": self.username, "password": self.password}
        consent = page.forms.get("consent-form")
        if consent is not None:
            return consent, {**consent.fields, "decision": decision}
        raise ConsentError(
            f"neither a login nor a consent form on the page (forms: {sorted(page.forms)}): "
            f"{page.text[:300]!r}"
        )

    def _action(self, form: _Form, page_url: str) -> str:
        action = urljoin(page_url, form.get("action") or page_url)
        if not self._on_server(action):
            raise ConsentError(f"a form of the bundled server posts to another origin: {action}")
        return action

    def _on_server(self, url: str) -> bool:
        parts = urlsplit(url)
        return (parts.scheme, parts.netloc) == self._origin


def _is_loopback(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme == "http" and (parts.hostname or "") in _LOOPBACK_HOSTS


def _is_launcher(url: str) -> bool:
    return urlsplit(url).path.startswith("/open/")


def _location(response: httpx.Response) -> str:
    return urljoin(str(response.url), response.headers["location"])


def _query(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def _outcome(url: str, status: int | None = None) -> ConsentOutcome:
    params = _query(url)
    return ConsentOutcome(url, params.get("code"), status, params)


class _Form(dict[str, str]):
    """A form's attributes, and its fields as a browser would send them (no button)."""

    def __init__(self, attrs: dict[str, str]) -> None:
        super().__init__(attrs)
        self.fields: dict[str, str] = {}


class _Page(HTMLParser):
    """The forms (by id) and the out-of-band code of one page of the bundled server."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: dict[str, _Form] = {}
        self.oob_code: str | None = None
        self.text = ""
        self._form: _Form | None = None
        self._in_code = False

    @classmethod
    def read(cls, text: str) -> _Page:
        page = cls()
        page.text = text
        page.feed(text)
        page.close()
        return page

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "form":
            self._form = _Form(values)
            self.forms[values.get("id", "")] = self._form
        elif tag == "input" and self._form is not None and values.get("name"):
            self._form.fields[values["name"]] = values.get("value", "")
        elif tag == "code" and values.get("id") == "oob-code":
            self._in_code = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "code":
            self._in_code = False

    def handle_data(self, data: str) -> None:
        if self._in_code:
            self.oob_code = (self.oob_code or "") + data.strip()
