"""Deployment profile: everything the suite knows about a target comes from this TOML file."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

DEFAULT_ENDPOINTS = {
    "authorize": "/oauth2/authorize",
    "token": "/oauth2/token",
    "revoke": "/oauth2/revoke",
    "userinfo": "/oauth2/userinfo",
}
CLIENT_ROLES = ("web", "installed", "other_web")


class ProfileError(ValueError):
    """The profile is missing something the suite cannot do without."""


@dataclass(frozen=True)
class Client:
    """A registered application the suite may use."""

    role: str
    client_id: str
    client_secret: str
    redirect_uri: str


@dataclass(frozen=True)
class User:
    """The test user who logs in and approves."""

    username: str
    password: str = ""
    email: str | None = None


@dataclass(frozen=True)
class Capabilities:
    """Optional features of the target; scenarios that need a missing one are skipped."""

    test_clock: str | None = None
    oob: bool = True
    manual_revocation: bool = False
    plain_http_url: str = ""


@dataclass(frozen=True)
class ConsentSettings:
    """How consent is given: driver name, preset and per-driver overrides."""

    driver: str = "form"
    preset: str = "bundled"
    form: dict[str, Any] = field(default_factory=dict)
    browser: dict[str, Any] = field(default_factory=dict)
    manual: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Profile:
    """A deployment under test."""

    name: str
    base_url: str
    user: User
    clients: dict[str, Client]
    ca_file: str | None = None
    known_deviations: tuple[str, ...] = ()
    min_interval: float = 0.0
    endpoints: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_ENDPOINTS))
    capabilities: Capabilities = field(default_factory=Capabilities)
    consent: ConsentSettings = field(default_factory=ConsentSettings)
    source: Path | None = None
    #: The deployment's names for the spec's scope identifiers (`[scopes]`: spec name = its name).
    scope_names: dict[str, str] = field(default_factory=dict)

    def scope(self, names: str) -> str:
        """The deployment's words for a space-separated list of the spec's scope names; a name
        the profile does not rename (or a deliberately wrong one) is sent as it is."""
        return " ".join(self.scope_names.get(name, name) for name in names.split(" "))

    def url(self, endpoint: str) -> str:
        """Absolute URL of a named endpoint (authorize, token, revoke, userinfo)."""
        return self.base_url + self.endpoints[endpoint]

    @property
    def plain_http_base(self) -> str:
        """The http:// twin of base_url, where refusal of plain HTTP is checked."""
        if self.capabilities.plain_http_url:
            return self.capabilities.plain_http_url.rstrip("/")
        parts = urlsplit(self.base_url)
        return urlunsplit(("http", parts.netloc, parts.path, "", "")).rstrip("/")

    def client(self, role: str) -> Client:
        """The registered application playing a role; a clear error when the profile lacks it."""
        try:
            return self.clients[role]
        except KeyError:
            raise ProfileError(f"profile {self.name!r} has no [clients.{role}]") from None


def _client(role: str, table: dict[str, Any]) -> Client:
    try:
        return Client(role, table["client_id"], table["client_secret"], table["redirect_uri"])
    except KeyError as exc:
        raise ProfileError(f"[clients.{role}] lacks {exc}") from None


def _capabilities(table: dict[str, Any]) -> Capabilities:
    clock = table.get("test_clock", False)
    return Capabilities(
        test_clock=clock if isinstance(clock, str) and clock else None,
        oob=bool(table.get("oob", True)),
        manual_revocation=bool(table.get("manual_revocation", False)),
        plain_http_url=str(table.get("plain_http_url", "")),
    )


def _consent(table: dict[str, Any]) -> ConsentSettings:
    return ConsentSettings(
        driver=str(table.get("driver", "form")),
        preset=str(table.get("preset", "bundled")),
        form=dict(table.get("form", {})),
        browser=dict(table.get("browser", {})),
        manual=dict(table.get("manual", {})),
    )


def parse_profile(data: dict[str, Any], source: Path | None = None) -> Profile:
    """Build a Profile from parsed TOML, resolving a relative CA path against the file."""
    if "base_url" not in data:
        raise ProfileError("profile lacks base_url")
    user = data.get("user", {})
    if "username" not in user:
        raise ProfileError("profile lacks [user] username")
    ca_file = data.get("ca_file") or None
    if ca_file and source is not None and not Path(ca_file).is_absolute():
        ca_file = str(source.parent / ca_file)
    return Profile(
        name=str(data.get("name", data["base_url"])),
        base_url=str(data["base_url"]).rstrip("/"),
        user=User(user["username"], user.get("password", ""), user.get("email")),
        clients={role: _client(role, t) for role, t in data.get("clients", {}).items()},
        ca_file=ca_file,
        known_deviations=tuple(data.get("known_deviations", ())),
        min_interval=float(data.get("min_interval", 0.0)),
        endpoints={**DEFAULT_ENDPOINTS, **data.get("endpoints", {})},
        capabilities=_capabilities(data.get("capabilities", {})),
        consent=_consent(data.get("consent", {})),
        source=source,
        scope_names={str(k): str(v) for k, v in data.get("scopes", {}).items()},
    )


def load_profile(
    path: str | Path, *, target: str | None = None, min_interval: float | None = None
) -> Profile:
    """Read a profile file; --target and --min-interval on the command line win over it."""
    path = Path(path)
    with path.open("rb") as fh:
        profile = parse_profile(tomllib.load(fh), source=path)
    if target:
        profile = replace(profile, base_url=target.rstrip("/"))
    if min_interval is not None:
        profile = replace(profile, min_interval=min_interval)
    return profile
