"""Consent drivers: how the suite gets through the user's authorization page.

`form` (plain HTTP), `browser` (system Chromium via Playwright), `manual` (a person),
`metabrainz` (plain HTTP through the metabrainz.org provider's React pages), or a profile's own
driver named as `consent.driver = "package.module:callable"`; the callable gets
`profile=` and `http=` keywords and returns a ConsentDriver.
"""

from __future__ import annotations

import importlib

from steps.consent.base import ConsentDriver, DriverError, Outcome, RedirectResult, ServicePage
from steps.consent.manual import OperatorConsole
from steps.consent.presets import resolve_preset
from steps.http.layer import HttpLayer
from steps.profiles.profile import TargetProfile

__all__ = [
    "ConsentDriver",
    "DriverError",
    "Outcome",
    "RedirectResult",
    "ServicePage",
    "make_driver",
]


def make_driver(
    profile: TargetProfile, http: HttpLayer, console: OperatorConsole | None = None
) -> ConsentDriver:
    """The driver the profile asks for."""
    kind = profile.consent.driver
    if ":" in kind:
        module, _, attribute = kind.partition(":")
        factory = getattr(importlib.import_module(module), attribute)
        driver = factory(profile=profile, http=http)
        if not isinstance(driver, ConsentDriver):
            raise ValueError(f"consent driver {kind!r} returned {driver!r}, not a ConsentDriver")
        return driver
    if kind == "metabrainz":
        from steps.consent.metabrainz import MetaBrainzDriver

        return MetaBrainzDriver(profile, http)
    if profile.consent.preset == "metabrainz":
        raise ValueError(
            "metabrainz.org's pages are React shells without HTML forms, so no preset of the "
            f'{kind} driver fits them: write consent.driver = "metabrainz" (and no preset)'
        )
    preset = resolve_preset(profile.consent.preset, profile.consent.form)
    if kind == "form":
        from steps.consent.form import FormDriver

        return FormDriver(profile, http, preset)
    if kind == "browser":
        from steps.consent.browser import BrowserDriver

        return BrowserDriver(profile, http, preset, profile.consent.browser)
    if kind == "manual":
        from steps.consent.manual import ManualDriver

        return ManualDriver(profile, console or OperatorConsole(), http, preset)
    raise ValueError(
        f"unknown consent driver {kind!r} (form, browser, manual, metabrainz or module:callable)"
    )
