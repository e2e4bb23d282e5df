"""Where the login and consent forms are, per kind of deployment; a profile may override any
key under [consent.form] (or [consent.browser])."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from soupsieve import SelectorSyntaxError

from steps.consent.base import DriverError
from steps.http.html import check_selector
from steps.profiles.profile import TargetProfile


@dataclass(frozen=True)
class Preset:
    """Page facts a driver needs. Forms, buttons, the out-of-band code's element and revoke
    links are CSS selectors, read alike by the form driver (`steps.http.html`) and by Chromium;
    `*_field` are field names.

    Manual revocation comes in two shapes: a form per grant on the list page (`revoke_form`,
    identified by `revoke_client_field` / `revoke_scope_field`), or, when `revoke_link` is set,
    a link per grant (the links it selects) in a row naming the application by its display
    name (`app_names`, by client role), leading to a confirmation page whose `revoke_form` is
    submitted with `revoke_button` (empty: the form's first button)."""

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
    login_form="form#login-form",
    username_field="username",
    password_field="password",  # noqa: S106 - a field name, not a password
    consent_form="form#consent-form",
    approve_button='[name="decision"][value="approve"]',
    deny_button='[name="decision"][value="deny"]',
    oob_path="/oauth2/oob",
    oob_code="code#oob-code",
    authorized_apps_path="/account/authorized",
    revoke_form="form.revoke-form",
    revoke_client_field="client_id",
    revoke_scope_field="scope",
)

# From the pages of a running musicbrainz-server, as observed (tests/suite/mb_pages.py serves
# them; tests/suite/musicbrainz/ has the whole service behind them): the login form a driver
# meets is rendered in place on /oauth2/authorize and posts back to it (so it is found by its
# password field, not by an action), the consent form is named "confirm" (buttons
# confirm.submit / confirm.cancel), the out-of-band page shows the code in <code>, and manual
# revocation is a "Revoke access" link per grant, rows naming the application by display name
# (set `app_names` under [consent.form]), then a confirmation page with an unnamed post form.
MUSICBRAINZ = Preset(
    login_path="/login",
    login_form='form:has([name="password"])',
    username_field="username",
    password_field="password",  # noqa: S106 - a field name, not a password
    consent_form='form[name="confirm"]',
    approve_button='[name="confirm.submit"][value="1"]',
    deny_button='[name="confirm.cancel"][value="1"]',
    oob_path="/oauth2/oob",
    oob_code="code",
    authorized_apps_path="/account/applications",
    revoke_form='form[method="post" i]',
    revoke_client_field="client_id",
    revoke_scope_field="scope",
    verified=False,
    revoke_link='a[href*="/account/applications/revoke-access/"]',
    revoke_button='[name="confirm.submit"][value="1"]',
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
    resolved = replace(preset, **(overrides or {}))
    for key in SELECTOR_KEYS:
        _check(key, getattr(resolved, key))
    return resolved


#: Preset keys that hold CSS selectors (an empty revoke_link / revoke_button means "none").
SELECTOR_KEYS = (
    "login_form",
    "consent_form",
    "revoke_form",
    "approve_button",
    "deny_button",
    "revoke_button",
    "oob_code",
    "revoke_link",
)
_OLD_FORM = re.compile(r"^(name|action|field|method):(.*)$")
_OLD_BUTTON = re.compile(r"^([^\s\[\]=]+)=([^\s\[\]]*)$")


def _check(key: str, selector: str) -> None:
    """A selector written in the presets' former syntax gets its CSS spelled out; any other
    invalid CSS is named."""
    if not selector:
        return
    css = _css_for_old(key, selector)
    if css is not None:
        raise ValueError(
            f"consent preset key {key} = {selector!r} is in the former selector syntax; "
            f"presets are CSS selectors now: {css}"
        )
    try:
        check_selector(selector)
    except SelectorSyntaxError as exc:
        raise ValueError(
            f"consent preset key {key} = {selector!r} is not a CSS selector: {exc}"
        ) from None


def _css_for_old(key: str, selector: str) -> str | None:
    """What to write instead of a selector in the former syntax (None: not one)."""
    css = _old_css(key, selector)
    if css is None and key == "oob_code" and ("(" in selector or "<" in selector):
        return "write oob_code = a CSS selector of the element that shows the code, as 'code'"
    return None if css is None else f"write {key} = {css!r}"


def _old_css(key: str, selector: str) -> str | None:
    old = _OLD_FORM.match(selector)
    if key.endswith("_form") and old:
        kind, value = old.groups()
        return {
            "name": f'form[name="{value}"]',
            "action": f'form[action*="{value}"]',
            "field": f'form:has([name="{value}"])',
            "method": f'form[method="{value}" i]',
        }[kind]
    old = _OLD_BUTTON.match(selector)
    if key.endswith("_button") and old:
        return f'[name="{old[1]}"][value="{old[2]}"]'
    if key == "revoke_link" and selector.startswith("/"):
        return f'a[href*="{selector}"]'
    return None


def app_name(profile: TargetProfile, preset: Preset, client_id: str) -> str:
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
