"""Values the steps send to probe the target: wrong secrets, codes and tokens that only look
right, redirect URIs changed in one way, scope sets the user has not approved. Shared by the
step modules, so each lives once."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import SplitResult, urlsplit, urlunsplit

from steps.outcomes import NotChecked
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
#: The features' words for the kind of application (the dimension `client`), as the profile's
#: role and whether its web requests ask for offline access.
CLIENTS = {
    "online web application": ("web", False),
    "offline web application": ("web", True),
    "installed application": ("installed", True),
}
#: The words of the dimension `client`, for step patterns.
CLIENT_WORDS = "|".join(CLIENTS)
#: The features' words for the PKCE challenge of an authorization request (dimension `pkce`).
PKCE_WORDS = {"an S256 code challenge": "S256", "a plain code challenge": "plain",
              "no code challenge": "none"}  # fmt: skip


#: The features' words for the characters of a state (the dimension `state`), and a state of
#: each: a word; the characters URLs reserve, escapes and a broken escape; non-ASCII text of
#: several scripts, an emoji and quotes (a server that encodes it twice, or decodes it once too
#: often, changes it).
STATES = {
    "plain letters": "xyzzy42",
    "reserved characters": "1+1=2 %2B%41%zz #top ?x=&y;z/é~",
    "non-ASCII characters": 'Grüße, 東京 🎵 "quoted" ñ',
}
#: The features' words for how a token travels (the dimension `delivery`, and two at once).
DELIVERIES = {
    "in the Authorization header": "header",
    "in a form body": "body",
    "in the query string": "query",
    "in the header and the query string": "header+query",
    "in the header and a form body": "header+body",
    "in a form body and the query string": "body+query",
}


def delivery(way: str | None) -> str:
    """The Service's name for the features' words of a delivery (none said: the header)."""
    return DELIVERIES[way] if way else "header"


def client_kind(kind: str, offline: bool = False) -> tuple[str, bool]:
    """The profile role and access type of the features' words for an application."""
    if kind in CLIENTS:
        return CLIENTS[kind]
    role = APPS[kind]
    return role, offline or role == "installed"


WRONG_SECRET = "not-the-client-secret-0123456789"  # noqa: S105 - deliberately wrong
NEVER_ISSUED = "never-issued-" + "x" * 20


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
WRONG_SECRETS = (
    r"(?P<how>a wrong client secret|an empty client secret|the first half of its client secret"
    r"|its client secret .+)"
)


def wrong_secret(client: RegisteredApp, how: str) -> str:
    """A wrong client secret described in a feature's words: another, empty, or a near miss
    of the right one (the ways a comparison goes wrong: a prefix, a fixed length, case, the
    shorter of two strings)."""
    right = client.client_secret
    if how == "a wrong client secret":
        return WRONG_SECRET
    if how == "an empty client secret":
        return ""
    if how == "the first half of its client secret":
        return right[: max(1, len(right) // 2)]
    if how == "its client secret in another case":
        return other_case(right)
    return near_miss(right, how.removeprefix("its client secret "))


def other_case(value: str) -> str:
    """The value with the case of its letters swapped; a value without letters cannot differ
    by case alone, so the scenario could not be checked with it."""
    swapped = value.swapcase()
    if swapped == value:
        raise NotChecked("the value has no letter, so no other case of it exists")
    return swapped


#: The features' words for a code or token that is not valid (the dimension `invalidity`).
INVALID = (
    r"(?P<how>that the service never issued|with its last character changed"
    r"|without its last character|with a character added|that was already used"
    r"|issued to another application|that was revoked|that has expired)"
)


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
        "to another host with the same port": lambda: parts._replace(
            netloc=f"attacker.example{port}"
        ),
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
