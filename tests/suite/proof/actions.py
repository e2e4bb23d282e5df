"""What faults do to requests and answers: swap a presented value for one never issued (the
server then refuses in its own shape), fill in or move parameters, read and rewrite token
answers, show a page where a redirect was due."""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from tests.suite.broken.exchange import FORM, ProxyRequest, ProxyResponse
from tests.suite.broken.helpers import set_form_value
from tests.suite.broken.registry import TOKEN

#: Where a request presents each kind of value.
PRESENTED = {"exchange": "code", "refresh": "refresh_token", "revoke": "token"}


def never_issued() -> str:
    """A code, token or secret the server never issued (and never will)."""
    return "proof-never-issued-" + secrets.token_urlsafe(15)  # not a stored token's length


def replace_param(req: ProxyRequest, name: str, value: str | None) -> None:
    """Set (None: remove) a parameter wherever the request carries it: URL or form body (a
    new one goes in the body)."""
    in_query = any(k == name for k, _ in req.query)
    if in_query:
        req.query = [(k, v) for k, v in req.query if k != name]
        req.query += [(name, value)] if value is not None else []
    if any(k == name for k, _ in req.form()) or (not in_query and value is not None):
        set_form_value(req, name, value)


def swap(req: ProxyRequest, name: str) -> None:
    """Present a never-issued value instead of the request's own `name`."""
    replace_param(req, name, never_issued())


def swap_bearer(req: ProxyRequest) -> None:
    """Present a never-issued token instead of a user information request's own, however it
    travels (the server answers its own invalid_token)."""
    header = req.header("authorization")
    if header:
        word, _, value = header.partition(" ")
        req.set_header("authorization", f"{word} {never_issued()}" if value else never_issued())
    for where in ("access_token",):
        if any(k == where for k, _ in req.query):
            req.query = [(k, never_issued() if k == where else v) for k, v in req.query]
        if any(k == where for k, _ in req.form()):
            set_form_value(req, where, never_issued())


def params_to_body(req: ProxyRequest) -> None:
    """A request whose parameters came in the URL, as the POST form the server takes."""
    pairs = [*req.form(), *req.query]
    req.method, req.query, req.raw_query = "POST", [], ""
    req.set_form(pairs)


def granted(req: ProxyRequest, resp: ProxyResponse) -> dict[str, Any] | None:
    """The JSON of a granted token answer, else None."""
    data = resp.json() if req.path == TOKEN and resp.status == 200 else None
    if isinstance(data, dict) and isinstance(data.get("access_token"), str):
        return data
    return None


def rewrite(resp: ProxyResponse, data: dict[str, Any]) -> None:
    resp.set_json(data)


def form_encoded(resp: ProxyResponse, data: dict[str, Any]) -> None:
    """The answer as application/x-www-form-urlencoded instead of JSON."""
    resp.body = urlencode({k: str(v) for k, v in data.items()}).encode()
    resp.set_header("content-type", FORM)


def page(status: int, text: str) -> ProxyResponse:
    """An HTML page of the service's own (an error shown to the user)."""
    html = (
        f"<!DOCTYPE html><html><head><title>Error</title></head><body><p>{text}</p></body></html>"
    )
    return ProxyResponse(status, [("content-type", "text/html; charset=utf-8")], html.encode())


def location_params(resp: ProxyResponse) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(resp.header("location") or "").query, keep_blank_values=True)


def set_location(resp: ProxyResponse, params: list[tuple[str, str]], fragment: str = "") -> None:
    parts = urlsplit(resp.header("location") or "")
    resp.set_header(
        "location", urlunsplit(parts._replace(query=urlencode(params), fragment=fragment))
    )


def is_error_redirect(resp: ProxyResponse) -> bool:
    return resp.status in (302, 303) and any(k == "error" for k, _ in location_params(resp))


def cached(resp: ProxyResponse) -> ProxyResponse:
    """A copy of an earlier answer, to answer again."""
    return ProxyResponse(resp.status, list(resp.headers), resp.body)
