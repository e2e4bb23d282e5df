"""Redirect URI rules: exact matching, and the desktop exceptions of spec 4.1.

Matching is done on the raw strings, never on parsed and normalised URLs, so that case,
percent-encoding, `..`, userinfo and fragment tricks cannot make a different URI match.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode, urlsplit

OOB = "urn:ietf:wg:oauth:2.0:oob"
MAX_LENGTH = 2048

# http://<loopback host>[:port]<rest>, where rest is empty or starts with "/".
_LOOPBACK = re.compile(
    r"^http://(?P<host>localhost|127\.0\.0\.1|\[::1\])(?::(?P<port>[1-9][0-9]{0,4}))?"
    r"(?P<rest>/[^#\s]*)?$"
)


def _loopback_parts(uri: str) -> tuple[str, str] | None:
    match = _LOOPBACK.match(uri)
    if not match:
        return None
    port = match["port"]
    if port is not None and int(port) > 65535:
        return None
    return match["host"], match["rest"] or ""


def is_loopback(uri: str) -> bool:
    return _loopback_parts(uri) is not None


def matches(requested: str, registered: str, public: bool) -> bool:
    """Does a request's redirect_uri match the application's registered URL?"""
    if requested == registered:
        return True
    if not public:
        return False
    if requested == OOB:
        return True
    asked, known = _loopback_parts(requested), _loopback_parts(registered)
    # Only the port may differ: same loopback host literal, path and query exact.
    return asked is not None and known is not None and asked == known


def validate_registered_uri(uri: str, app_type: str) -> str | None:
    """Why a URL cannot be registered as a redirect URL, or None when it can."""
    if app_type == "public" and uri == OOB:
        return None
    if not uri or len(uri) > MAX_LENGTH or any(c.isspace() for c in uri):
        return "the redirect URL must be a URL of at most 2048 characters without spaces"
    parts = urlsplit(uri)
    if parts.scheme not in ("https", "http"):
        return "the redirect URL must be an http or https URL"
    if not parts.hostname:
        return "the redirect URL must name a host"
    if parts.username is not None or "@" in parts.netloc:
        return "the redirect URL must not contain a user name or password"
    if parts.fragment or "#" in uri:
        return "the redirect URL must not contain a fragment (RFC 6749 3.1.2)"
    return None


def with_params(uri: str, params: dict[str, str]) -> str:
    """Add query parameters to a redirect URI, keeping the query it already has."""
    separator = "&" if urlsplit(uri).query else ("" if uri.endswith("?") else "?")
    return uri + separator + urlencode(params)
