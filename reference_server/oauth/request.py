"""A request to the token, revocation or user-information endpoint, as plain values."""

from __future__ import annotations

from typing import NamedTuple

from ..errors import ParameterError


class ClientRequest(NamedTuple):
    """What a client sent, as read off the wire and nothing more: every rule about it is the
    endpoint's (a named tuple: one is made per request, at a third of a dataclass's cost)."""

    method: str = "POST"
    query: bytes = b""  # the raw query string
    content_type: str = ""
    # The raw body of a form POST (b"" for any other request), or why it could not be read
    # (too large, a bad Content-Length): the endpoint decides whether that matters.
    body: bytes | ParameterError = b""
    authorization: str = ""  # the Authorization header's value, "" without one
    peer: str = "unknown"  # who is guessing, as the guard counts it (`guard.source`)

    def authorization_scheme(self) -> tuple[str, str]:
        """(scheme in lower case, the rest) of the Authorization header; ("", "") without one."""
        scheme, _, value = self.authorization.partition(" ")
        return scheme.lower(), value
