"""Where the login and consent forms are, per kind of deployment; a profile may override any
key under [consent.form] (or [consent.browser])."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from steps.consent.base import DriverError
from steps.profile import Profile


@dataclass(frozen=True)
class Preset:
    """Page facts a driver needs. Form selectors: `#id`, `.class`, `name:x`, `action:substr`;
    buttons: `name=value`; `oob_code` is a regular expression whose group 1 is the code.

    Manual revocation comes in two shapes: a form per grant on the list page (`revoke_form`,
    identified by `revoke_client_field` / `revoke_scope_field`), or, when `revoke_link` is set,
    a link per grant (its href contains `revoke_link`) in a row naming the application by its
    display name (`app_names`, by client role), leading to a confirmation page whose
    `revoke_form` is submitted with `revoke_button` (empty: the form's first button)."""

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
    revoke_link: str = ""
    revoke_button: str = ""
    app_names: Mapping[str, str] = field(default_factory=dict)


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

# From the pages of a running musicbrainz-server (reference/musicbrainz-behaviour.md, "Observed
# on a running musicbrainz-server"): the login form a driver meets is rendered in place on
# /oauth2/authorize and posts back to it (so it is found by its password field, not by an
# action), the consent form is named "confirm" (buttons confirm.submit / confirm.cancel), the
# out-of-band page shows the code in <code>, and manual revocation is a "Revoke access" link per
# grant, rows naming the application by display name (set `app_names` under [consent.form]),
# then a confirmation page with an unnamed post form. Not tried against musicbrainz.org itself.
MUSICBRAINZ = Preset(
    login_path="/login",
    login_form="field:password",
    username_field="username",
    password_field="password",  # noqa: S106 - a field name, not a password
    consent_form="name:confirm",
    approve_button="confirm.submit=1",
    deny_button="confirm.cancel=1",
    oob_path="/oauth2/oob",
    oob_code=r"<code\b[^>]*>([^<]+)</code>",
    authorized_apps_path="/account/applications",
    revoke_form="method:post",
    revoke_client_field="client_id",
    revoke_scope_field="scope",
    verified=False,
    revoke_link="/account/applications/revoke-access/",
    revoke_button="confirm.submit=1",
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


def app_name(profile: Profile, preset: Preset, client_id: str) -> str:
    """The display name the user's page shows for an application (by role or client id), for
    presets that revoke by name: that page names no client id."""
    role = next((c.role for c in profile.clients.values() if c.client_id == client_id), "")
    name = preset.app_names.get(role) or preset.app_names.get(client_id)
    if not name:
        raise DriverError(
            f"the {profile.consent.preset} preset revokes by application name: set "
            f'[consent.form.app_names] {role or client_id} = "<display name>" in the profile'
        )
    return name
