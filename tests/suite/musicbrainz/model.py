"""The stand-in's state, in memory (one process, handlers on one event loop): applications,
the user, browser sessions, and grants as musicbrainz-server keeps them.

musicbrainz-server keeps one row per authorization (`editor_oauth_token`): the code, then the
access token and, for offline and installed grants, the refresh token. A refresh replaces the
row's access token and keeps its refresh token (never rotated); revoking deletes the row or
only clears its access token (reference/musicbrainz-behaviour.md, "Token endpoint",
"Revocation endpoint")."""

from __future__ import annotations

import base64
import re
import secrets
import time
from dataclasses import dataclass, field

OOB = "urn:ietf:wg:oauth:2.0:oob"
SCOPE_BITS = {
    "profile": 1,
    "email": 2,
    "tag": 4,
    "rating": 8,
    "collection": 16,
    "submit_isrc": 64,
    "submit_barcode": 128,
}
CODE_LIFETIME, ACCESS_LIFETIME = 3600, 3600  # a code lives an hour (RFC 6749: 10 minutes)
#: An installed application registered with an empty redirect URI may use these, any port and
#: any path (the path is not compared: RFC 8252 wants it exact).
LOOPBACK = re.compile(r"http://(localhost|127\.0\.0\.1|\[::1\])(:[0-9]{1,5})?/")


def random_value() -> str:
    """192 random bits, base64url without padding: 32 characters."""
    return base64.urlsafe_b64encode(secrets.token_bytes(24)).decode().rstrip("=")


def now() -> int:
    """Whole seconds, as the server's database stores expiry times."""
    return int(time.time())


@dataclass
class App:
    """A registered application: web (confidential) or installed."""

    row: int
    name: str
    kind: str
    redirect_uri: str
    client_id: str = field(default_factory=random_value)
    secret: str = field(default_factory=random_value)

    def allows(self, uri: str) -> bool:
        """The redirect URI rules: the registered URI exactly; an installed application also
        the out-of-band URN and any loopback URI."""
        if uri == self.redirect_uri and uri:
            return True
        return self.kind == "installed" and (uri == OOB or LOOPBACK.match(uri) is not None)


@dataclass
class Grant:
    """One authorization (a row): code, then tokens."""

    app: App
    bits: int
    redirect_uri: str
    offline: bool
    challenge: str | None
    method: str | None
    code: str = field(default_factory=random_value)
    code_expires: int = field(default_factory=lambda: now() + CODE_LIFETIME)
    exchanged: bool = False
    access_token: str | None = None
    access_expires: int = 0
    refresh_token: str | None = None

    def live_access(self) -> bool:
        """Whether the row holds an access token that still works."""
        return self.access_token is not None and self.access_expires > now()

    def new_access_token(self) -> str:
        self.access_token, self.access_expires = random_value(), now() + ACCESS_LIFETIME
        return self.access_token


@dataclass
class User:
    """The one account of the stand-in."""

    username: str
    password: str
    email: str
    user_id: int = 1


@dataclass
class Site:
    """Everything the stand-in knows."""

    user: User
    apps: list[App]
    grants: list[Grant] = field(default_factory=list)
    #: Applications the account registered that a run never uses (their secrets are shown on
    #: the account's applications page all the same).
    others: list[App] = field(default_factory=list)
    sessions: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Deliberate defects beside musicbrainz-server's own (`--defect`), to prove a run that
    #: meets something the profile does not list does not conform.
    defects: set[str] = field(default_factory=set)
    #: Requests answered so far: the hash order the invalid_scope redirect depends on.
    counter: int = 0

    def app(self, client_id: str | None = None, row: int | None = None) -> App | None:
        found = [a for a in self.apps if a.client_id == client_id or a.row == row]
        return found[0] if found else None

    def by_code(self, code: str) -> Grant | None:
        return next((g for g in self.grants if g.code == code), None)

    def by_access(self, token: str) -> Grant | None:
        return next((g for g in self.grants if token and g.access_token == token), None)

    def by_refresh(self, token: str) -> Grant | None:
        return next((g for g in self.grants if token and g.refresh_token == token), None)

    def approved(self, app: App, bits: int) -> bool:
        """approval_prompt=auto: only a grant of the same scope set with a live access token
        counts (a grant whose access token was revoked or expired is asked again)."""
        return any(g.app is app and g.bits == bits and g.live_access() for g in self.grants)

    def listed(self) -> list[tuple[str, int, int]]:
        """The user's applications page: app and scope set of grants with a live access token
        (a grant living on through its refresh token alone is not shown)."""
        rows = {(g.app.name, g.app.row, g.bits) for g in self.grants if g.live_access()}
        return sorted(rows)

    def registered(self) -> list[tuple[str, str, str, str]]:
        """The account's applications as its page lists them: name, type, client id, secret."""
        kinds = {"web": "Web application", "installed": "Installed application"}
        return [(a.name, kinds[a.kind], a.client_id, a.secret) for a in self.apps + self.others]

    def revoke_listed(self, row: int, bits: int) -> None:
        """The user's revocation: every grant of that application and scope set."""
        self.grants = [g for g in self.grants if not (g.app.row == row and g.bits == bits)]


def scope_bits(scope: str) -> int | None:
    """The scope string as bits; None when a name is unknown (names are case-sensitive)."""
    names = scope.split()
    if not all(name in SCOPE_BITS for name in names):
        return None
    return sum({SCOPE_BITS[name] for name in names})


def scope_names(bits: int) -> list[str]:
    return [name for name, bit in SCOPE_BITS.items() if bits & bit]
