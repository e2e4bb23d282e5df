"""Deployment profile: everything the suite knows about a target comes from this TOML file."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from steps.profiles.keys import UnknownKeys, check_keys

DEFAULT_ENDPOINTS = {
    "authorize": "/oauth2/authorize",
    "token": "/oauth2/token",
    "revoke": "/oauth2/revoke",
    "userinfo": "/oauth2/userinfo",
}


class ProfileError(ValueError):
    """The profile is missing something the suite cannot do without."""


@dataclass(frozen=True)
class RegisteredApp:
    """A registered application the suite may use."""

    role: str
    client_id: str
    client_secret: str
    redirect_uri: str
    #: Further redirect URIs registered for the application (`more_redirect_uris`): where the
    #: deployment matches them exactly, port included, the suite needs a second valid one.
    more_redirect_uris: tuple[str, ...] = ()


@dataclass(frozen=True)
class User:
    """The test user who logs in and approves."""

    username: str
    password: str = ""
    email: str | None = None


@dataclass(frozen=True)
class Capabilities:
    """What the profile declares of the target and of the suite's means to drive it.

    Declaring absent a capability the spec requires never skips its rules: `oob = false` makes
    the out-of-band rules fail ("the profile declares no out-of-band support"). The others
    say what the suite can do: without a `test_clock` path, expiry waits in real time (only
    with --run-slow); `manual_revocation = false` (the consent driver cannot revoke on the
    website) makes RULE.REVOKE_MANUAL "could not be checked", while `manual_revocation = "none"`
    declares that the website offers the user no way to revoke, which fails it."""

    test_clock: str | None = None
    oob: bool = True
    manual_revocation: bool = False
    plain_http_url: str = ""
    #: The website gives the user no way to revoke an application (spec 3 requires one).
    no_manual_revocation: bool = False


@dataclass(frozen=True)
class ConsentSettings:
    """How consent is given: driver name, preset and per-driver overrides."""

    driver: str = "form"
    preset: str = "bundled"
    form: dict[str, Any] = field(default_factory=dict)
    browser: dict[str, Any] = field(default_factory=dict)
    manual: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TargetProfile:
    """A deployment under test."""

    name: str
    base_url: str
    user: User
    clients: dict[str, RegisteredApp]
    ca_file: str | None = None
    known_deviations: tuple[str, ...] = ()
    #: Why each known deviation is one (`[known_deviations]` as id = "reason"; the list form
    #: gives none), carried into the reports and the deployment matrix.
    deviation_reasons: dict[str, str] = field(default_factory=dict)
    min_interval: float = 0.0
    endpoints: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_ENDPOINTS))
    capabilities: Capabilities = field(default_factory=Capabilities)
    consent: ConsentSettings = field(default_factory=ConsentSettings)
    source: Path | None = None
    #: The deployment's names for the spec's scope identifiers (`[scopes]`: spec name = its name).
    scope_names: dict[str, str] = field(default_factory=dict)

    def scope(self, names: str) -> str:
        """The deployment's words for a space-separated list of the spec's scope names. A name
        the profile does not rename (or an unknown one) is sent as it is; a spec name in
        another case (a deliberate probe) becomes the deployment's name in that case."""
        return " ".join(self._scope_name(name) for name in names.split(" "))

    def _scope_name(self, name: str) -> str:
        if name in self.scope_names:
            return self.scope_names[name]
        spec = next((s for s in self.scope_names if s.lower() == name.lower()), None)
        if spec is None:
            return name
        own = self.scope_names[spec]
        if name.isupper():
            return own.upper()
        return own.capitalize() if own.capitalize() != own else own.upper()

    def renamed_scopes(self) -> dict[str, str]:
        """Spec scope names the deployment calls otherwise (spec name: its name)."""
        return {spec: own for spec, own in self.scope_names.items() if spec != own}

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

    def client(self, role: str) -> RegisteredApp:
        """The registered application playing a role; a clear error when the profile lacks it."""
        try:
            return self.clients[role]
        except KeyError:
            raise ProfileError(f"profile {self.name!r} has no [clients.{role}]") from None


def _client(role: str, table: dict[str, Any]) -> RegisteredApp:
    try:
        more = tuple(str(uri) for uri in table.get("more_redirect_uris", ()))
        return RegisteredApp(
            role, table["client_id"], table["client_secret"], table["redirect_uri"], more
        )
    except KeyError as exc:
        raise ProfileError(f"[clients.{role}] lacks {exc}") from None


def _capabilities(table: dict[str, Any]) -> Capabilities:
    revocation = table.get("manual_revocation", False)
    if revocation not in (True, False, "none"):
        raise ProfileError(
            "[capabilities] manual_revocation is true (the consent driver can revoke on the "
            'website), false (it cannot) or "none" (the website offers no way to revoke); '
            f"not {revocation!r}"
        )
    return Capabilities(
        test_clock=_test_clock(table.get("test_clock", False)),
        oob=_flag(table, "oob", True),
        manual_revocation=revocation is True,
        plain_http_url=str(table.get("plain_http_url", "")),
        no_manual_revocation=revocation == "none",
    )


def _test_clock(value: Any) -> str | None:
    """The test clock's URL path; `false` or "" for none. `true` says nothing about where it
    is, so it is refused rather than read as "no clock"."""
    if value is False or value == "":
        return None
    if isinstance(value, str) and value.startswith("/"):
        return value
    raise ProfileError(
        "[capabilities] test_clock needs the URL path of the target's test clock "
        f'(e.g. test_clock = "/_test/clock"), or false for none; not {value!r}'
    )


def _flag(table: dict[str, Any], name: str, default: bool) -> bool:
    value = table.get(name, default)
    if not isinstance(value, bool):
        raise ProfileError(f"[capabilities] {name} is true or false, not {value!r}")
    return value


def _consent(table: dict[str, Any]) -> ConsentSettings:
    return ConsentSettings(
        driver=str(table.get("driver", "form")),
        preset=str(table.get("preset", "bundled")),
        form=dict(table.get("form", {})),
        browser=dict(table.get("browser", {})),
        manual=dict(table.get("manual", {})),
    )


def _base_url(value: Any) -> str:
    """The service's base URL: https only (the spec makes every endpoint HTTPS-only)."""
    url = str(value).rstrip("/")
    scheme = urlsplit(url).scheme.lower()
    if scheme == "http":
        raise ProfileError(
            f"base_url {url} is plain http://: the service is HTTPS-only (the spec makes every "
            "endpoint HTTPS-only), so write its https:// URL"
        )
    if scheme != "https" or not urlsplit(url).netloc:
        raise ProfileError(f"base_url must be an https:// URL, not {url!r}")
    return url


def _deviations(value: Any) -> dict[str, str]:
    """Known deviations by rule id with their reasons: a table of id = "reason", or the
    former list of ids (no reasons)."""
    if isinstance(value, dict):
        bad = sorted(str(k) for k, v in value.items() if not isinstance(v, str))
        if bad:
            raise ProfileError(
                f'[known_deviations] gives each rule its reason as text (ID = "reason"): {bad}'
            )
        return {str(k): v for k, v in value.items()}
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return dict.fromkeys(value, "")
    raise ProfileError(
        'known_deviations is a table of rule id = "reason" ([known_deviations]) or a list of '
        f"rule ids, not {value!r}"
    )


def parse_profile(data: dict[str, Any], source: Path | None = None) -> TargetProfile:
    """Build a TargetProfile from parsed TOML, resolving a relative CA path against the file. Keys
    the suite does not know are refused (a typo must not go unnoticed)."""
    try:
        check_keys(data)
    except UnknownKeys as error:
        raise ProfileError(str(error)) from None
    if "base_url" not in data:
        raise ProfileError("profile lacks base_url")
    user = data.get("user", {})
    if "username" not in user:
        raise ProfileError("profile lacks [user] username")
    ca_file = data.get("ca_file") or None
    if ca_file and source is not None and not Path(ca_file).is_absolute():
        ca_file = str(source.parent / ca_file)
    deviations = _deviations(data.get("known_deviations", ()))
    return TargetProfile(
        name=str(data.get("name", data["base_url"])),
        base_url=_base_url(data["base_url"]),
        user=User(user["username"], user.get("password", ""), user.get("email")),
        clients={role: _client(role, t) for role, t in data.get("clients", {}).items()},
        ca_file=ca_file,
        known_deviations=tuple(deviations),
        deviation_reasons={rule: why for rule, why in deviations.items() if why},
        min_interval=float(data.get("min_interval", 0.0)),
        endpoints={**DEFAULT_ENDPOINTS, **data.get("endpoints", {})},
        capabilities=_capabilities(data.get("capabilities", {})),
        consent=_consent(data.get("consent", {})),
        source=source,
        scope_names={str(k): str(v) for k, v in data.get("scopes", {}).items()},
    )


def load_profile(
    path: str | Path, *, target: str | None = None, min_interval: float | None = None
) -> TargetProfile:
    """Read a profile file; --target and --min-interval on the command line win over it."""
    path = Path(path)
    with path.open("rb") as fh:
        profile = parse_profile(tomllib.load(fh), source=path)
    if target:
        profile = replace(profile, base_url=_base_url(target))
    if min_interval is not None:
        profile = replace(profile, min_interval=min_interval)
    return profile
