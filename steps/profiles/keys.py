"""The keys a deployment profile may hold, table by table, and the check that refuses others.

A misspelt key would otherwise be ignored in silence: `min_intervall = 1` against a live
service means an unpaced run, `ob = false` under [capabilities] a run that believes the
deployment has out-of-band delivery. So every table's keys are checked, and the error names the
table, the stray keys and the keys the table knows, as the kit's config file does
(client_kit/config.py). The preset tables ([consent.form] and the preset's own) are checked by
the preset (steps/consent/presets.py), which knows its fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The spec's scope identifiers (section 2.4): the keys of [scopes].
SPEC_SCOPES = ("profile", "email", "tag", "rating", "collection", "submit_isrc", "submit_barcode")
CLIENT_ROLES = ("web", "installed", "other_web")

TOP = (
    "name",
    "base_url",
    "ca_file",
    "known_deviations",
    "min_interval",
    "failures_per_minute",
    "user",
    "clients",
    "capabilities",
    "consent",
    "endpoints",
    "scopes",
)
USER = ("username", "password", "email")
CLIENT = ("client_id", "client_secret", "redirect_uri", "more_redirect_uris")
CAPABILITIES = ("test_clock", "oob", "manual_revocation", "plain_http_url")
ENDPOINTS = ("authorize", "token", "revoke", "userinfo")
CONSENT = ("driver", "preset", "form", "browser", "manual")
BROWSER = ("executable_path", "headless")
#: The manual driver takes no settings: a key there is a typo or belongs elsewhere.
MANUAL: tuple[str, ...] = ("hand_over_session",)


class UnknownKeys(ValueError):
    """A table holds keys the suite does not know."""


def check_keys(data: Mapping[str, Any]) -> None:
    """Refuse keys no table of a profile knows (UnknownKeys names them and the known ones)."""
    _table("the profile's top level", data, TOP)
    _table("[user]", _sub(data, "user"), USER)
    clients = _sub(data, "clients")
    _table("[clients]", clients, CLIENT_ROLES, what="application role")
    for role in CLIENT_ROLES:
        _table(f"[clients.{role}]", _sub(clients, role), CLIENT)
    _table("[capabilities]", _sub(data, "capabilities"), CAPABILITIES)
    _table("[endpoints]", _sub(data, "endpoints"), ENDPOINTS)
    _table("[scopes]", _sub(data, "scopes"), SPEC_SCOPES, what="scope of the spec")
    consent = _sub(data, "consent")
    _table("[consent]", consent, CONSENT)
    _table("[consent.browser]", _sub(consent, "browser"), BROWSER)
    _table("[consent.manual]", _sub(consent, "manual"), MANUAL)


def _sub(data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, Mapping):
        raise UnknownKeys(f"{name} must be a table ([{name}] or {name} = {{ ... }}), not {value!r}")
    return value


def _table(
    where: str, table: Mapping[str, Any], known: tuple[str, ...], *, what: str = "key"
) -> None:
    unknown = sorted(set(table) - set(known))
    if not unknown:
        return
    names = ", ".join(unknown)
    listing = f"known: {', '.join(known)}" if known else "it takes none"
    plural = "s" if len(unknown) > 1 else ""
    raise UnknownKeys(f"unknown {what}{plural} in {where}: {names} ({listing})")
