"""Whether what the operator pasted fits the authorization request they were asked to open.

A person answering dozens of prompts pastes the wrong thing now and then: the address of the
previous prompt, the authorization URL itself, a code where the redirect's address was asked
for. Read as the answer, such a paste becomes a verdict about the service (one stale paste once
gave 23 spec failures against a conforming server). The manual driver knows the URL it asked
the person to open, so it compares: a redirect must go to the request's redirect URI and carry
the request's state; an out-of-band request ends on the service's code page (or a typed code),
any other on a redirect; a code is never pasted twice. An answer that does not fit is asked for
again; pasted a second time unchanged, it stands (the service may really have done that, and
then the rule about it judges the service)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

OOB_URI = "urn:ietf:wg:oauth:2.0:oob"
#: Answers that name a page instead of pasting an address.
WORDS = ("error", "consent")


@dataclass(frozen=True)
class Request:
    """What the authorization URL asks for: where the browser must be sent, with which state."""

    url: str
    redirect_uri: str | None
    state: str | None

    @classmethod
    def of(cls, authorize_url: str) -> Request:
        """Read an authorization URL's redirect URI and state."""
        params = dict(parse_qsl(urlsplit(authorize_url).query, keep_blank_values=True))
        return cls(authorize_url, params.get("redirect_uri"), params.get("state"))

    @property
    def oob(self) -> bool:
        """Whether the service is to show the code on its own page."""
        return self.redirect_uri == OOB_URI


def target(url: str) -> str:
    """An address without its query and fragment (where it sends the browser)."""
    return url.split("#", 1)[0].split("?", 1)[0]


@dataclass(frozen=True)
class ServicePages:
    """Where the service's own pages are: its host, and the path of its code page."""

    netloc: str
    oob_path: str


def misfit(answer: str, request: Request, service: ServicePages, seen_codes: set[str]) -> str:
    """Why a pasted answer cannot be the outcome of this request ("" when it fits)."""
    if not answer or answer.lower() in WORDS:
        return ""
    if not answer.startswith(("http://", "https://", "urn:")):
        return _typed_code(answer, request, seen_codes)
    if target(answer) == target(request.url):
        return "that is the address you were asked to open, not where the browser ended"
    if urlsplit(answer).netloc == service.netloc:
        return _service_page(answer, request, service, seen_codes)
    return _redirect(answer, request, seen_codes)


def _typed_code(answer: str, request: Request, seen: set[str]) -> str:
    if request.redirect_uri and not request.oob:
        return (
            "that looks like a code, but this request sends the browser back to "
            f"{request.redirect_uri}: paste the address the browser was sent to"
        )
    return _reused(answer, seen)


def _service_page(answer: str, request: Request, service: ServicePages, seen: set[str]) -> str:
    """The code page (no redirect: no state to compare), or a page the browser stayed on."""
    params = dict(parse_qsl(urlsplit(answer).query, keep_blank_values=True))
    code_page = "code" in params or urlsplit(answer).path == service.oob_path
    if not code_page:
        return ""
    if request.redirect_uri and not request.oob:
        return (
            "that is the service's code page, but this request sends the browser back to "
            f"{request.redirect_uri}: paste the address the browser was sent to"
        )
    return _reused(params["code"], seen) if "code" in params else ""


def _redirect(answer: str, request: Request, seen: set[str]) -> str:
    if request.oob:
        return (
            f"this request asks the service to show the code on its own page, but that "
            f"address goes to {target(answer)}"
        )
    if request.redirect_uri and target(answer) != target(request.redirect_uri):
        return (
            f"that address goes to {target(answer)}, not to this request's redirect URI "
            f"{target(request.redirect_uri)}"
        )
    parts = urlsplit(answer)
    params = dict(parse_qsl(parts.query, keep_blank_values=True))
    fragment = dict(parse_qsl(parts.fragment, keep_blank_values=True))
    code = params.get("code") or fragment.get("code")
    return _state(params, request, fragment) or (_reused(code, seen) if code else "")


def _state(params: dict[str, str], request: Request, fragment: dict[str, str]) -> str:
    if request.state is None:
        return ""
    found = params.get("state", fragment.get("state"))
    if found == request.state:
        return ""
    shown = "no state" if found is None else f"the state {found!r}"
    return f"that address carries {shown}, not this request's state {request.state!r}"


def _reused(code: str, seen: set[str]) -> str:
    if code in seen:
        return "that code was pasted for an earlier prompt"
    return ""
