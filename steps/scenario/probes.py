"""Values the steps send to probe the target: wrong secrets, codes and tokens that only look
right, redirect URIs changed in one way, scope sets the user has not approved. Shared by the
step modules, so each lives once."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import SplitResult, urlsplit, urlunsplit

from steps.profiles.keys import SPEC_SCOPES
from steps.profiles.profile import RegisteredApp

ALL_SCOPES = SPEC_SCOPES
OOB_URI = "urn:ietf:wg:oauth:2.0:oob"
#: The features' names for the profile's application roles.
APPS = {
    "web application": "web",
    "web": "web",
    "installed application": "installed",
    "installed": "installed",
    "second web": "other_web",
    "second web application": "other_web",
}
WRONG_SECRET = "not-the-client-secret-0123456789"  # noqa: S105 - deliberately wrong
NEVER_ISSUED = "never-issued-" + "x" * 20


#: The features' words for a near miss (a step pattern's `how` group).
NEAR_MISSES = (
    r"(?P<how>with its last character changed|without its last character|with a character added)"
)


def near_miss(right: str, how: str) -> str:
    """A value that differs from the right one only at its end: what a comparison of a prefix,
    of a fixed length, or up to the shorter of two strings lets through. `how` may say "its
    last character" or "the last character"."""
    last = right[-1:] or "a"
    changes = {
        "with the last character changed": lambda: right[:-1] + ("b" if last == "a" else "a"),
        "without the last character": lambda: right[:-1],
        "with a character added": lambda: right + last,
    }
    how = how.replace("its last", "the last")
    if how not in changes:
        raise ValueError(f"unknown change {how!r}")
    return changes[how]()


#: The features' words for a wrong client secret (a step pattern's `how` group).
WRONG_SECRETS = r"(?P<how>a wrong client secret|an empty client secret|its client secret .+)"


def wrong_secret(client: RegisteredApp, how: str) -> str:
    """A wrong client secret described in a feature's words."""
    if how == "a wrong client secret":
        return WRONG_SECRET
    if how == "an empty client secret":
        return ""
    return near_miss(client.client_secret, how.removeprefix("its client secret "))


def loopback_uri(registered: str, port: int, path: str | None = None) -> str:
    """The registered loopback URI on another port (and perhaps another path)."""
    parts = urlsplit(registered)
    host = parts.hostname or "localhost"
    return urlunsplit((parts.scheme, f"{host}:{port}", path or parts.path, parts.query, ""))


def change_uri(registered: str, change: str) -> str:
    """The registered redirect URI changed in one described way (feature Examples)."""
    fixed = {
        "to the out-of-band URI": OOB_URI,
        "to a localhost URI": "http://localhost:8080/callback",
    }
    if change in fixed:
        return fixed[change]
    changes = _uri_changes(urlsplit(registered))
    if change not in changes:
        raise ValueError(f"unknown redirect URI change {change!r}")
    return urlunsplit(changes[change]())


def _uri_changes(parts: SplitResult) -> dict[str, Callable[[], SplitResult]]:
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    path = parts.path or "/"
    return {
        "to another host": lambda: parts._replace(netloc=f"attacker.example{port}"),
        "to another path": lambda: parts._replace(path="/elsewhere"),
        "by a path segment added": lambda: parts._replace(path=path.rstrip("/") + "/more"),
        "to another scheme": lambda: parts._replace(
            scheme="http" if parts.scheme == "https" else "https"
        ),
        "to another port": lambda: parts._replace(netloc=f"{host}:{(parts.port or 443) + 1}"),
        "by an extra query parameter": lambda: parts._replace(
            query=(parts.query + "&" if parts.query else "") + "extra=1"
        ),
        "by a user name before the host": lambda: parts._replace(netloc=f"user@{parts.netloc}"),
        "into the user name of another host": lambda: parts._replace(
            netloc=f"{parts.netloc}@attacker.example"
        ),
        "by a fragment": lambda: parts._replace(fragment="fragment"),
        "to upper case in its path": lambda: parts._replace(path=path.upper()),
        "to upper case in its host": lambda: parts._replace(netloc=parts.netloc.upper()),
        "by a percent-encoded character": lambda: parts._replace(path=_encode_first_letter(path)),
        "by a trailing slash": lambda: parts._replace(path=path + "/"),
        "by a dot segment in the path": lambda: parts._replace(
            path=path.rstrip("/") + "/../elsewhere"
        ),
        "to a subdomain of its host": lambda: parts._replace(netloc=f"evil.{parts.netloc}"),
    }


def _encode_first_letter(path: str) -> str:
    """`/callback` -> `/%63allback`: the same resource to a lax comparison, not to an exact one."""
    for index, char in enumerate(path):
        if char.isalpha():
            return f"{path[:index]}%{ord(char):02X}{path[index + 1 :]}"
    return path + "%2E"
