"""Settings for ``mb-oauth``: command-line options, then environment, then the config file.

The config file is TOML at ``$MB_OAUTH_CONFIG`` or ``$XDG_CONFIG_HOME/mb-oauth/config.toml``
(``~/.config/mb-oauth/config.toml``)::

    service = "musicbrainz"          # or "metabrainz" or "https://127.0.0.1:8443"
    base_url = "https://..."         # the service's rules at another address (staging, ...)
    client_id = "..."
    client_secret = "..."            # keep the file private (chmod 600)
    ca_bundle = "/path/to/ca.pem"    # the CA of the service's certificate, if not the system's
    store = "keyring"                # or "file", "file:/some/dir", "memory"
    ports = [8976, 8977]             # fixed loopback ports (needed for metabrainz)

    [services.metabrainz]            # per-service overrides, keyed by service name or URL
    client_id = "..."

Every setting, commented: the example of docs/client-kit.md (tests/kit/test_config.py holds it to
:data:`SETTINGS`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from client_kit._errors import ConfigurationError

if TYPE_CHECKING:
    from client_kit._storage import TokenStore

ENV_PREFIX = "MB_OAUTH_"
#: setting name -> type; every one may come from MB_OAUTH_<NAME> or the config file
SETTINGS: dict[str, type] = {
    "service": str,
    "base_url": str,
    "client_id": str,
    "client_secret": str,
    "ca_bundle": str,
    "proxy": str,
    "user_agent": str,
    "store": str,
    "account": str,
    "ports": list,
    "redirect_path": str,
    "loopback_host": str,
    "scopes": list,
}


@dataclass
class Settings:
    """Resolved settings, each with where it came from (for error messages).

    Values are what TOML, the environment or an option gave (any TOML value): read them
    with :meth:`text` and :meth:`words`, which check the type and say where a wrong one is.
    """

    values: dict[str, object] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    config_path: Path | None = None

    def get(self, name: str, default: object = None) -> object:
        value = self.values.get(name)
        return default if value in (None, "", [], ()) else value

    def text(self, name: str, default: str | None = None) -> str | None:
        """A string setting (``client_id = 5`` in the file is an error, not ``"5"``)."""
        value = self.get(name)
        if value is None:
            return default
        if not isinstance(value, str):
            raise ConfigurationError(
                f"{name} must be a string, not {value!r} (from {self.sources.get(name)})"
            )
        return value

    def words(self, name: str, default: Sequence[str] = ()) -> list[str]:
        """A list setting: a TOML list, or a string of names separated by commas or spaces."""
        value = self.get(name)
        if value is None:
            return list(default)
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list | tuple):
            raise ConfigurationError(
                f"{name} must be a list, not {value!r} (from {self.sources.get(name)})"
            )
        return [word for item in items for word in str(item).replace(",", " ").split()]


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    if env.get("MB_OAUTH_CONFIG"):
        return Path(env["MB_OAUTH_CONFIG"]).expanduser()
    base = env.get("XDG_CONFIG_HOME")
    root = Path(base) if base else Path.home() / ".config"
    return root / "mb-oauth" / "config.toml"


def read_config(path: Path) -> dict[str, object]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigurationError(
            f"cannot read the config file {path}: {exc.strerror}", setting="config_file"
        ) from exc
    import tomllib

    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigurationError(
            f"the config file {path} is not valid TOML: {exc}", setting="config_file"
        ) from exc


def parse_ports(values: object) -> tuple[int, ...]:
    """Ports from ``--port 1 --port 2``, ``--port 1,2``, ``"1 2"`` or a TOML list."""
    if values is None:
        return ()
    if isinstance(values, str | int):
        items: Sequence[object] = [values]
    elif isinstance(values, list | tuple):
        items = values
    else:
        raise ConfigurationError(f"not a list of ports: {values!r}", setting="ports")
    ports: list[int] = []
    for item in items:
        for part in str(item).replace(",", " ").split():
            try:
                port = int(part)
            except ValueError:
                raise ConfigurationError(f"not a port number: {part!r}") from None
            if not 1 <= port <= 65535:
                raise ConfigurationError(f"port out of range: {port}")
            if port not in ports:
                ports.append(port)
    return tuple(ports)


def open_store(spec: str | None) -> TokenStore:
    """A store from a setting: ``keyring`` (default), ``file``, ``file:DIR`` or ``memory``."""
    from client_kit._storage import FileStore, MemoryStore

    spec = (spec or "keyring").strip()
    if spec == "keyring":
        from client_kit._keyring_store import KeyringStore

        return KeyringStore()
    if spec == "memory":
        return MemoryStore()
    if spec == "file" or spec.startswith("file:"):
        directory = spec[5:] or None
        return FileStore(Path(directory).expanduser() if directory else None)
    raise ConfigurationError(
        f"unknown store {spec!r}; use keyring, file, file:DIR or memory", setting="store"
    )


def resolve_settings(
    options: Mapping[str, object], environ: Mapping[str, str] | None = None
) -> Settings:
    """Options win over the environment, which wins over the config file."""
    env = os.environ if environ is None else environ
    path = config_path(env)
    data = read_config(path)
    settings = Settings(config_path=path)
    top = {k: v for k, v in data.items() if k in SETTINGS}
    unknown = set(data) - set(SETTINGS) - {"services"}
    if unknown:
        raise ConfigurationError(
            f"unknown setting(s) {', '.join(sorted(unknown))} in {path}; "
            f"known: {', '.join(SETTINGS)}"
        )
    layers: list[tuple[str, Mapping[str, object]]] = [(str(path), top)]
    env_values = {
        name: env[ENV_PREFIX + name.upper()]
        for name in SETTINGS
        if env.get(ENV_PREFIX + name.upper())
    }
    layers.append(("environment", env_values))
    layers.append(("command line", {k: v for k, v in options.items() if v not in (None, ())}))
    for source, layer in layers:
        for name, value in layer.items():
            settings.values[name] = value
            settings.sources[name] = source
    # per-service overrides from the file apply below the environment and options
    service = settings.text("service", "musicbrainz")
    sections = data.get("services") or {}
    section = sections.get(service) if isinstance(sections, dict) else None
    if not isinstance(section, dict):
        section = {}
    for name, value in section.items():
        if name in SETTINGS and settings.sources.get(name, str(path)) == str(path):
            settings.values[name] = value
            settings.sources[name] = f"{path} [services.{service}]"
    return settings
