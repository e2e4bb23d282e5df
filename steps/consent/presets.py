"""Where the login and consent forms are, per kind of deployment; a profile may override any
key under [consent.form] (or [consent.browser])."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class Preset:
    """Page facts a driver needs. Form selectors: `#id`, `.class`, `name:x`, `action:substr`;
    buttons: `name=value`; `oob_code` is a regular expression whose group 1 is the code."""

    login_path: str
    login_form: str
    username_field: str
    password_field: str
    consent_form: str
    approve_button: str
    deny_button: str
    oob_path: str
    oob_code: str
    authorized_apps_path: str
    revoke_form: str
    revoke_client_field: str
    revoke_scope_field: str
    verified: bool = True


BUNDLED = Preset(
    login_path="/login",
    login_form="#login-form",
    username_field="username",
    password_field="password",  # noqa: S106 - a field name, not a password
    consent_form="#consent-form",
    approve_button="decision=approve",
    deny_button="decision=deny",
    oob_path="/oauth2/oob",
    oob_code=r'<code\b[^>]*\bid="oob-code"[^>]*>([^<]+)</code>',
    authorized_apps_path="/account/authorized",
    revoke_form=".revoke-form",
    revoke_client_field="client_id",
    revoke_scope_field="scope",
)

# UNVERIFIED against the live site: assembled from reference/musicbrainz-behaviour.md and the
# public musicbrainz-server templates (login form posting to /login with username, password and
# a CSRF token; consent form named "confirm" posting back to the authorize URL with the buttons
# confirm.submit / confirm.cancel; the out-of-band page showing the code in <code>). Check it
# once against musicbrainz.org before relying on it, and override keys in [consent.form].
MUSICBRAINZ = Preset(
    login_path="/login",
    login_form="action:/login",
    username_field="username",
    password_field="password",  # noqa: S106 - a field name, not a password
    consent_form="name:confirm",
    approve_button="confirm.submit=1",
    deny_button="confirm.cancel=1",
    oob_path="/oauth2/oob",
    oob_code=r"<code>([^<]+)</code>",
    authorized_apps_path="/account/applications",
    revoke_form="action:/revoke-access",
    revoke_client_field="client_id",
    revoke_scope_field="scope",
    verified=False,
)

PRESETS = {"bundled": BUNDLED, "musicbrainz": MUSICBRAINZ}


def resolve_preset(name: str, overrides: dict[str, Any] | None = None) -> Preset:
    """A named preset with the profile's overrides applied; unknown names and keys are errors."""
    try:
        preset = PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown consent preset {name!r} (known: {sorted(PRESETS)})") from None
    known = {f.name for f in fields(Preset)}
    unknown = set(overrides or {}) - known
    if unknown:
        raise ValueError(f"unknown consent preset keys {sorted(unknown)} (known: {sorted(known)})")
    return replace(preset, **(overrides or {}))
