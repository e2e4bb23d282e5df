"""Service profiles: where a service lives, what its scopes are called, what it allows.

Two live services are known: the classic MusicBrainz endpoints of the spec and the newer
MetaBrainz provider, which prefixes scopes, matches loopback ports exactly, has no
out-of-band redirect and rotates refresh tokens. Any other base URL (the bundled reference
server, a staging deployment) gets the MusicBrainz rules unless told otherwise.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict, Unpack
from urllib.parse import urlsplit

from client_kit._errors import ConfigurationError, InsecureTransportError

if TYPE_CHECKING:
    import ssl

    import httpx

OOB_REDIRECT_URI = "urn:ietf:wg:oauth:2.0:oob"
DEFAULT_USER_AGENT = "mb-oauth-client-kit/0.1 ( https://github.com/metabrainz )"

SHORT_SCOPES = (
    "profile",
    "email",
    "tag",
    "rating",
    "collection",
    "submit_isrc",
    "submit_barcode",
)
_MUSICBRAINZ_SCOPES = {name: name for name in SHORT_SCOPES}
_METABRAINZ_SCOPES = {
    name: name if name in ("profile", "email") else f"musicbrainz:{name}" for name in SHORT_SCOPES
}


class ProfileSettings(TypedDict, total=False):
    """The fields of a :class:`Profile` that a caller may set (see there)."""

    scopes: Mapping[str, str]
    allows_oob: bool
    exact_loopback_port: bool
    rotating_refresh_tokens: bool
    revoked_refresh_errors: tuple[tuple[str, str], ...]
    unauthorized_statuses: tuple[int, ...]
    loopback_ports: tuple[int, ...]
    redirect_path: str
    loopback_host: str
    authorize_path: str
    token_path: str
    revoke_path: str
    userinfo_path: str
    ca_bundle: str | None
    proxy: str | None
    user_agent: str
    timeout: float
    deadline: float


class ProfileChanges(ProfileSettings, total=False):
    """What :meth:`Profile.replace` may change: any field."""

    name: str
    base_url: str


class ClientOptions(TypedDict):
    """The keyword arguments of ``httpx.Client`` that a profile decides."""

    verify: ssl.SSLContext
    proxy: str | None
    headers: dict[str, str]
    timeout: float
    follow_redirects: bool


@dataclass(frozen=True)
class Profile:
    """Everything the kit needs to know about one deployment of the service."""

    name: str
    base_url: str
    scopes: Mapping[str, str] = field(default_factory=lambda: dict(_MUSICBRAINZ_SCOPES))
    allows_oob: bool = True
    exact_loopback_port: bool = False
    rotating_refresh_tokens: bool = False
    #: (error, words of its description) that a refresh answer uses for a refresh token
    #: revoked or already rotated away: "log in again", like ``invalid_grant``
    revoked_refresh_errors: tuple[tuple[str, str], ...] = ()
    #: statuses of an API answer that mean "this access token is no longer good"
    unauthorized_statuses: tuple[int, ...] = (401,)
    loopback_ports: tuple[int, ...] = ()
    redirect_path: str = "/callback"
    #: host of the loopback redirect URI as registered: ``localhost`` (the spec) or 127.0.0.1
    loopback_host: str = "localhost"
    authorize_path: str = "/oauth2/authorize"
    token_path: str = "/oauth2/token"  # noqa: S105 - a path, not a secret
    revoke_path: str = "/oauth2/revoke"
    userinfo_path: str = "/oauth2/userinfo"
    ca_bundle: str | None = None
    proxy: str | None = None
    user_agent: str = DEFAULT_USER_AGENT
    #: seconds one read (connecting, each part of an answer) may take
    timeout: float = 30.0
    #: seconds one whole request may take, its answer included (a slow drip is cut off)
    deadline: float = 60.0

    def __post_init__(self) -> None:
        require_https(self.base_url, "the service base URL")
        object.__setattr__(self, "base_url", self.base_url.rstrip("/"))

    # -- endpoints ---------------------------------------------------------------------

    @property
    def authorize_url(self) -> str:
        return self.base_url + self.authorize_path

    @property
    def token_url(self) -> str:
        return self.base_url + self.token_path

    @property
    def revoke_url(self) -> str:
        return self.base_url + self.revoke_path

    @property
    def userinfo_url(self) -> str:
        return self.base_url + self.userinfo_path

    # -- scopes ------------------------------------------------------------------------

    def wire_scopes(self, scopes: Iterable[str]) -> list[str]:
        """Map short scope names (``tag``) to what this service calls them."""
        known = set(self.scopes.values())
        result: list[str] = []
        for raw in scopes:
            for name in raw.replace(",", " ").split():
                wire = self.scopes.get(name, name if name in known else None)
                if wire is None:
                    choices = ", ".join(self.scopes)
                    raise ConfigurationError(
                        f"unknown scope {name!r} for {self.name}; choose from {choices}",
                        setting="scopes",
                    )
                if wire not in result:
                    result.append(wire)
        return result

    def short_scopes(self, wire: Iterable[str]) -> list[str]:
        """The reverse of :meth:`wire_scopes`, for display."""
        reverse = {value: key for key, value in self.scopes.items()}
        return [reverse.get(name, name) for name in wire]

    # -- HTTP settings -----------------------------------------------------------------

    def replace(self, **changes: Unpack[ProfileChanges]) -> Profile:
        """A copy with some fields changed (CA bundle, proxy, ports, ...)."""
        return dataclasses.replace(self, **changes)

    def ssl_context(self) -> ssl.SSLContext:
        """The TLS context for this service (system trust or the given CA bundle)."""
        import ssl  # only commands that talk to the network need it

        if self.ca_bundle:
            return _context_from_ca_file(self.ca_bundle)
        try:
            import certifi

            return ssl.create_default_context(cafile=certifi.where())
        except ImportError:  # pragma: no cover - certifi comes with httpx
            return ssl.create_default_context()

    def client_options(self) -> ClientOptions:
        """Keyword arguments for ``httpx.Client`` / ``httpx.AsyncClient``."""
        return {
            "verify": self.ssl_context(),
            "proxy": self.proxy,
            "headers": {"User-Agent": self.user_agent},
            "timeout": self.timeout,
            "follow_redirects": False,
        }

    def http_client(self) -> httpx.Client:
        import httpx

        return httpx.Client(**self.client_options())

    def async_http_client(self) -> httpx.AsyncClient:
        import httpx

        return httpx.AsyncClient(**self.client_options())


def _context_from_ca_file(path: str) -> ssl.SSLContext:
    """A context trusting ``path``; a missing or unreadable file is a clear message."""
    import ssl

    from client_kit._errors import CertificateRejected

    try:
        return ssl.create_default_context(cafile=path)
    except FileNotFoundError:
        problem = "does not exist"
    except IsADirectoryError:
        problem = "is a folder, not a file"
    except PermissionError:
        problem = "cannot be read (permission denied)"
    except (ssl.SSLError, ValueError, UnicodeDecodeError):
        problem = "does not hold a PEM certificate (-----BEGIN CERTIFICATE-----)"
    except OSError as exc:
        problem = f"cannot be read ({exc.strerror or exc})"
    raise CertificateRejected(f"the CA file {path} {problem}")


def require_https(url: str, what: str) -> None:
    """Refuse any URL that would carry secrets or tokens in clear text."""
    if urlsplit(url).scheme.lower() != "https":
        raise InsecureTransportError(
            f"{what} must use https:// (got {url!r}); the kit never sends tokens or "
            "client secrets over plain HTTP"
        )


def musicbrainz(
    base_url: str = "https://musicbrainz.org", **settings: Unpack[ProfileSettings]
) -> Profile:
    """The classic MusicBrainz endpoints of the spec (or a deployment that behaves alike)."""
    return Profile(name="musicbrainz", base_url=base_url, **settings)


def metabrainz(
    base_url: str = "https://metabrainz.org", **settings: Unpack[ProfileSettings]
) -> Profile:
    """The newer MetaBrainz provider: prefixed scopes, exact ports, rotating tokens."""
    defaults: ProfileSettings = {
        "scopes": dict(_METABRAINZ_SCOPES),
        "allows_oob": False,
        "exact_loopback_port": True,
        "rotating_refresh_tokens": True,
        # Authlib's RefreshTokenGrant there: '"refresh_token" in request was already revoked.'
        "revoked_refresh_errors": (("invalid_request", "already revoked"),),
        "unauthorized_statuses": (401, 403),
    }
    defaults.update(settings)
    return Profile(name="metabrainz", base_url=base_url, **defaults)


def custom(
    base_url: str, like: str = "musicbrainz", **settings: Unpack[ProfileSettings]
) -> Profile:
    """Any base URL, e.g. the bundled server's ``https://127.0.0.1:PORT``."""
    factory = {"musicbrainz": musicbrainz, "metabrainz": metabrainz}.get(like)
    if factory is None:
        raise ConfigurationError(f"unknown service kind {like!r}; use musicbrainz or metabrainz")
    profile = factory(base_url, **settings)
    return profile.replace(name=profile.base_url)


PROFILE_NAMES = ("musicbrainz", "metabrainz")


def resolve(
    service: str, base_url: str | None = None, **settings: Unpack[ProfileSettings]
) -> Profile:
    """A profile from a name (``musicbrainz``, ``metabrainz``) or a base URL.

    ``base_url`` aims a named profile at another deployment (staging, self-hosted).
    """
    if service in PROFILE_NAMES:
        factory = musicbrainz if service == "musicbrainz" else metabrainz
        return factory(base_url, **settings) if base_url else factory(**settings)
    if "://" in service:
        if base_url:
            raise ConfigurationError(
                f"the service {service!r} is already a base URL; to apply a profile's rules at "
                f"another address ({base_url}), name the profile (musicbrainz or metabrainz)",
                setting="service",
            )
        return custom(service, **settings)
    raise ConfigurationError(
        f"unknown service {service!r}; use musicbrainz, metabrainz or an https:// base URL",
        setting="service",
    )
