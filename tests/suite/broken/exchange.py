"""Request and response objects the proxy's mutations read and rewrite."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

FORM = "application/x-www-form-urlencoded"


def _get(headers: list[tuple[str, str]], name: str) -> str | None:
    return next((v for k, v in headers if k.lower() == name.lower()), None)


def _set(headers: list[tuple[str, str]], name: str, value: str | None) -> list[tuple[str, str]]:
    kept = [(k, v) for k, v in headers if k.lower() != name.lower()]
    return kept if value is None else [*kept, (name, value)]


@dataclass
class ProxyRequest:
    """A request as received; the query string is kept raw until a mutation changes it."""

    method: str
    path: str
    query: list[tuple[str, str]]
    headers: list[tuple[str, str]]
    body: bytes = b""
    raw_query: str = ""
    scheme: str = "https"  # "http" on the proxy's plain listener

    def header(self, name: str) -> str | None:
        return _get(self.headers, name)

    def set_header(self, name: str, value: str | None) -> None:
        self.headers = _set(self.headers, name, value)

    def query_string(self) -> str:
        """The query as received unless a mutation changed it (then re-encoded)."""
        if self.query == parse_qsl(self.raw_query, keep_blank_values=True):
            return self.raw_query
        return urlencode(self.query)

    def is_form(self) -> bool:
        return (self.header("content-type") or "").startswith(FORM)

    def form(self) -> list[tuple[str, str]]:
        """The form body's pairs ([] when the body is not a form)."""
        if not self.is_form():
            return []
        return parse_qsl(self.body.decode(), keep_blank_values=True)

    def set_form(self, pairs: list[tuple[str, str]]) -> None:
        self.body = urlencode(pairs).encode()
        self.set_header("content-type", FORM)

    def param(self, name: str) -> str | None:
        """A parameter from the form body, else from the query string."""
        for key, value in [*self.form(), *self.query]:
            if key == name:
                return value
        return None

    def body_param(self, name: str) -> str | None:
        """A parameter of the form body alone, as a server that reads no query string sees it."""
        return next((v for k, v in self.form() if k == name), None)

    def query_value(self, name: str) -> str | None:
        return next((v for k, v in self.query if k == name), None)

    def is_(self, method: str, path: str) -> bool:
        return self.method == method and self.path == path


@dataclass
class ProxyResponse:
    """A response on its way back to the suite."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""

    def header(self, name: str) -> str | None:
        return _get(self.headers, name)

    def set_header(self, name: str, value: str | None) -> None:
        self.headers = _set(self.headers, name, value)

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def set_json(self, data: Any) -> None:
        self.body = json.dumps(data).encode()
        self.set_header("content-type", "application/json")

    def location_params(self) -> dict[str, str]:
        """Query parameters of the Location header ({} without a redirect)."""
        return dict(parse_qsl(urlsplit(self.header("location") or "").query))

    def set_location_params(self, params: list[tuple[str, str]]) -> None:
        parts = urlsplit(self.header("location") or "")
        self.set_header("location", urlunsplit(parts._replace(query=urlencode(params))))


def json_response(
    status: int, data: Any, headers: list[tuple[str, str]] | None = None
) -> ProxyResponse:
    """A JSON response made by the proxy itself."""
    resp = ProxyResponse(status, list(headers or []))
    resp.set_json(data)
    return resp


def redirect(location: str) -> ProxyResponse:
    return ProxyResponse(302, [("location", location)])


Forward = Callable[[ProxyRequest], Awaitable[ProxyResponse]]


@dataclass
class Context:
    """What a mutation knows: the upstream profile (clients, user), and its own state."""

    profile: dict[str, Any]
    state: dict[str, Any]
    public_base: str

    def client_by_id(self, client_id: str | None) -> tuple[str, dict[str, Any]] | None:
        """(role, client table) of a provisioned application."""
        for role, client in (self.profile.get("clients") or {}).items():
            if client.get("client_id") == client_id:
                return role, client
        return None

    def client(self, role: str) -> dict[str, Any]:
        return self.profile["clients"][role]

    @property
    def counters(self) -> dict[str, int]:
        """What the mutation counted since it was switched on (read by the tests)."""
        counters: dict[str, int] = self.state.setdefault("counters", {})
        return counters

    def count(self, key: str) -> None:
        self.counters[key] = self.counters.get(key, 0) + 1
