"""What a scenario's evidence shows of one HTTP exchange: masked by field name and by place,
clipped.

`Exchange` is one request and its answer as sent and received; `redacted` is what the reports
may show of it. Values are masked by parameter name (URLs, form and JSON bodies, HTML inputs,
cookies and headers), by their place on a page (a column, a field or a label that names a
secret: the secrets of applications the suite never heard of), and, as a second net, every
secret value met anywhere is scrubbed from all text, in the forms it takes when echoed. All is
the run's `Redactor` (`client_kit.redaction`): its names and its mask, the same as the
reports' and the kit's logs'.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote_plus, urlsplit, urlunsplit

from client_kit.redaction import Redactor, is_secret_name
from steps.http.html import inputs, secret_places

#: Bodies are kept whole up to this many characters, beyond it their start and end.
BODY_LIMIT = 200_000
#: Values seen are scrubbed everywhere from this length on (shorter ones would garble text).
SCRUB_MIN_LENGTH = 6


def _mask_pairs(pairs: Iterable[tuple[str, str]], redactor: Redactor) -> str:
    """Re-encode name=value pairs, secret values masked (and left readable, not %-encoded)."""
    out = []
    for name, value in pairs:
        if is_secret_name(name):
            redactor.learn(value)
            out.append(f"{quote_plus(name)}={redactor.mask(value)}")
        else:
            out.append(f"{quote_plus(name)}={quote_plus(value)}")
    return "&".join(out)


def mask_url(url: str, redactor: Redactor) -> str:
    """Mask secret query parameters (and a userinfo password) of a URL."""
    parts = urlsplit(url)
    query = _mask_pairs(parse_qsl(parts.query, keep_blank_values=True), redactor)
    fragment = parts.fragment
    if "=" in fragment:
        fragment = _mask_pairs(parse_qsl(fragment, keep_blank_values=True), redactor)
    netloc = parts.netloc
    if "@" in netloc and ":" in netloc.split("@", 1)[0]:
        user, rest = netloc.split("@", 1)
        netloc = f"{user.split(':', 1)[0]}:{redactor.mask(user.split(':', 1)[1])}@{rest}"
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def _is_secret_member(name: str) -> bool:
    """A JSON member that holds a secret: named like one, or naming a secret at all
    (`oauth_secret`, `clientSecret`)."""
    return is_secret_name(name) or "secret" in name.lower()


def _mask_json(value: Any, redactor: Redactor) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if _is_secret_member(str(key)) and isinstance(item, str):
                redactor.learn(item)
                out[key] = redactor.mask(item)
            else:
                out[key] = _mask_json(item, redactor)
        return out
    if isinstance(value, list):
        return [_mask_json(item, redactor) for item in value]
    return value


def _mask_html_inputs(page: str, redactor: Redactor) -> str:
    """Mask the values of inputs named like secrets (a page's CSRF token), as written; learn
    the values the page shows where it shows secrets (scrubbed with every other learnt one)."""
    for name, value in inputs(page):
        if is_secret_name(name):
            redactor.learn(value)
            written = f'value="{html.escape(value)}"'
            page = page.replace(written, f'value="{redactor.mask(value)}"')
    redactor.learn(*secret_places(page))
    return page


def mask_body(body: str, content_type: str, redactor: Redactor) -> str:
    """Mask a body by its kind: form fields, JSON members or HTML inputs named like secrets."""
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind == "application/x-www-form-urlencoded":
        return _mask_pairs(parse_qsl(body, keep_blank_values=True), redactor)
    if kind.endswith("json"):
        try:
            return json.dumps(_mask_json(json.loads(body), redactor), ensure_ascii=False)
        except ValueError:
            return body
    if "html" in kind:
        return _mask_html_inputs(body, redactor)
    return body


def _mask_cookie_pairs(pairs: str, redactor: Redactor) -> str:
    masked = []
    for pair in pairs.split(";"):
        key, eq, val = pair.strip().partition("=")
        redactor.learn(val)
        masked.append(f"{key}={redactor.mask(val)}" if eq else pair.strip())
    return "; ".join(masked)


def _mask_header(name: str, value: str, redactor: Redactor) -> str:
    lname = name.lower()
    if lname in ("authorization", "proxy-authorization"):
        scheme, _, credentials = value.partition(" ")
        redactor.learn(credentials)
        return f"{scheme} {redactor.mask(credentials)}" if credentials else redactor.mask(value)
    if lname == "cookie":
        return _mask_cookie_pairs(value, redactor)
    if lname == "set-cookie":
        first, sep, attributes = value.partition(";")
        return _mask_cookie_pairs(first, redactor) + sep + attributes
    if lname in ("location", "content-location", "referer"):
        return mask_url(value, redactor)
    return value


def mask_headers(headers: Iterable[tuple[str, str]], redactor: Redactor) -> dict[str, str]:
    """Mask credentials, cookies and secret query parameters of redirect targets."""
    out: dict[str, str] = {}
    for name, value in headers:
        masked = _mask_header(name, value, redactor)
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
    #: How the suite read the answer where it was lenient (steps/http/readers.py), for the reports.
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        """Add a note once."""
        if text not in self.notes:
            self.notes.append(text)

    def learn(self, redactor: Redactor) -> None:
        """Teach the redactor the secret values of this exchange (by field name), so that they
        are scrubbed from every exchange of the run, before and after this one."""
        self._masked(redactor)

    def redacted(self, redactor: Redactor) -> dict[str, Any]:
        """The contract's evidence shape, masked structurally and then by known values."""
        return {k: _scrub_tree(v, redactor) for k, v in self._masked(redactor).items()}

    def _masked(self, redactor: Redactor) -> dict[str, Any]:
        """The evidence shape masked by field name (the redactor learns the values met)."""
        req_type = dict((k.lower(), v) for k, v in self.request_headers).get("content-type", "")
        resp_type = dict((k.lower(), v) for k, v in self.response_headers).get("content-type", "")
        request = {
            "method": self.method,
            "url": mask_url(self.url, redactor),
            "headers": mask_headers(self.request_headers, redactor),
            "body": mask_body(self.request_body, req_type, redactor),
        }
        response: dict[str, Any] = {
            "status": self.status,
            "headers": mask_headers(self.response_headers, redactor),
            "body": clip(mask_body(self.response_body, resp_type, redactor)),
        }
        if self.error:
            response["error"] = self.error
        if self.notes:
            response["notes"] = list(self.notes)
        return {"request": request, "response": response}


def clip(text: str, limit: int = BODY_LIMIT) -> str:
    """The text whole, or its start and end when longer than limit (the end of an error page
    often names the error)."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n… ({len(text) - 2 * half} characters left out) …\n{text[-half:]}"


def _scrub_tree(value: Any, redactor: Redactor) -> Any:
    if isinstance(value, str):
        return redactor.scrub(value)
    if isinstance(value, dict):
        return {k: _scrub_tree(v, redactor) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub_tree(v, redactor) for v in value]
    return value
