"""Redirect URI rules: exact matching, and the desktop exceptions of spec 4.1.

Matching is done on the raw strings, never on parsed and normalised URLs, so that case,
percent-encoding, `..`, userinfo and fragment tricks cannot make a different URI match.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode, urlsplit

OOB = "urn:ietf:wg:oauth:2.0:oob"
MAX_LENGTH = 2048

# http://<loopback host>[:port]<rest>, where rest is empty or starts with "/". Always used with
# fullmatch: a pattern ending in `$` would also accept a trailing newline ("...callback%0A").
_LOOPBACK = re.compile(
    r"http://(?P<host>localhost|127\.0\.0\.1|\[::1\])(?::(?P<port>[1-9][0-9]{0,4}))?"
    r"(?P<rest>/[!\"$-~]*)?"  # printable ASCII but "#": no space, no control character
)
_PORT = re.compile(r"[0-9]{1,5}")


def _loopback_parts(uri: str) -> tuple[str, str] | None:
    match = _LOOPBACK.fullmatch(uri)
    if not match:
        return None
    port = match["port"]
    if port is not None and int(port) > 65535:
        return None
    return match["host"], match["rest"] or ""


def is_loopback(uri: str) -> bool:
    return _loopback_parts(uri) is not None


def matches(requested: str, registered: str, public: bool) -> bool:
    """Does a request's redirect_uri match the application's registered URL? As strings."""
    # AUTHZ-REDIRECT-URI-BYPASS: no spelling RFC 3986 calls equivalent matches
    if requested == registered:
        return True
    if not public:
        return False
    if requested == OOB:  # DESKTOP-OOB
        return True
    asked, known = _loopback_parts(requested), _loopback_parts(registered)
    # DESKTOP-LOCALHOST-ANY-PORT: only the port may differ; DESKTOP-LOOPBACK-PATH: the same
    # loopback host literal, path and query exact.
    return asked is not None and known is not None and asked == known


def validate_registered_uri(uri: str, app_type: str) -> str | None:
    """Why a URL cannot be registered as a redirect URL, or None when it can.

    Accepted: https URLs; for installed (public) applications also http on a loopback host
    (RFC 8252 7.3) and the out-of-band URN. Codes never travel in clear to another host.
    """
    if uri == OOB:
        if app_type == "public":
            return None
        return "the out-of-band URN is for installed (public) applications only"
    if not uri or len(uri) > MAX_LENGTH:
        return "the redirect URL must be a URL of at most 2048 characters"
    if any(c.isspace() or not (0x21 <= ord(c) <= 0x7E) for c in uri):
        return "the redirect URL must not contain spaces, control or non-ASCII characters"
    parts = urlsplit(uri)
    if parts.scheme not in ("https", "http"):
        return "the redirect URL must be an https URL (or http on a loopback host)"
    if parts.username is not None or "@" in parts.netloc:
        return "the redirect URL must not contain a user name or password"
    if parts.fragment or "#" in uri:
        return "the redirect URL must not contain a fragment (RFC 6749 3.1.2)"
    if not parts.hostname:
        return "the redirect URL must name a host"
    problem = _port_problem(parts.netloc)
    if problem:
        return problem
    if parts.scheme == "http":
        return _plain_http_problem(uri, app_type)
    return None


def _port_problem(netloc: str) -> str | None:
    """Port 0, an empty port and ports past 65535 reach no server (for a browser, or ours)."""
    after_host = netloc[netloc.rfind("]") + 1 :] if netloc.startswith("[") else netloc
    _, colon, port = after_host.rpartition(":")
    if not colon:
        return None
    if not port:
        return "the redirect URL has an empty port (drop the ':' or give a port)"
    if not _PORT.fullmatch(port) or not 1 <= int(port) <= 65535:
        return "the redirect URL's port must be a number from 1 to 65535"
    return None


def _plain_http_problem(uri: str, app_type: str) -> str | None:
    if app_type != "public":
        return (
            "a confidential (web) application needs an https redirect URL: over plain http "
            "its codes would travel in clear"
        )
    if not is_loopback(uri):
        return (
            "plain http is accepted only on a loopback host (http://localhost, "
            "http://127.0.0.1 or http://[::1], RFC 8252 7.3); other hosts need https"
        )
    return None


def with_params(uri: str, params: dict[str, str]) -> str:
    """Add query parameters to a redirect URI, keeping the query it already has."""
    separator = "&" if urlsplit(uri).query else ("" if uri.endswith("?") else "?")
    return uri + separator + urlencode(params)
