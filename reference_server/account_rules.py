"""What a user or an application may be registered with (spec 2.1), checked before any write.

Each refusal is an `AccountError` whose message says what to fix and whose `field` names the
form field at fault, so that a page shows the reason beside that field and the command line
prints it. Names follow `names` (nothing that can fake the page they are shown on).
"""

from __future__ import annotations

import re
import zoneinfo
from functools import cache
from urllib.parse import urlsplit

from . import names
from .redirects import validate_registered_uri

APPLICATION_TYPES = ("confidential", "public")  # APP-TYPES: web and installed
MIN_PASSWORD = 8
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)+")


class AccountError(ValueError):
    """A user or application cannot be created as asked; `field` names the form field at
    fault ("name", "redirect_uri", ...), for a page to show the reason beside it."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def _clean_name(name: str, what: str) -> str:
    try:
        return names.clean(name, what)
    except names.NameRefused as refused:
        raise AccountError(str(refused), "name") from None


def clean_user_name(name: str) -> str:
    """The user name to store: `names`' rules, and no / ? # (it is a path segment)."""
    name = _clean_name(name, "a user name")
    if any(c in name for c in "/?#"):
        raise AccountError("a user name may not hold / ? or #", "name")
    return name


def check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"a password has at least {MIN_PASSWORD} characters", "password")


@cache
def _time_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones()) | {"UTC"}


def _refuse_characters(value: str | None, field: str, what: str) -> None:
    """A profile field holds no character a name may not (names.py): the public profile, which
    the consent page links to, shows it."""
    if value is None:
        return
    try:
        names.refuse_characters(value, what)
    except names.NameRefused as refused:
        raise AccountError(str(refused), field) from None


def check_profile(
    email: str | None, website: str | None, timezone: str | None, gender: str | None = None
) -> None:
    """What `userinfo` will hand to applications must at least look like what it says, and
    nothing of it may fake the page it is shown on."""
    _refuse_characters(email, "email", "an e-mail address")
    _refuse_characters(website, "website", "a website")
    _refuse_characters(gender, "gender", "a gender")
    if email is not None and (len(email) > 254 or not _EMAIL.fullmatch(email)):
        raise AccountError(f"{email!r} is not an e-mail address (name@example.org)", "email")
    if website is not None:
        parts = urlsplit(website)
        if (
            parts.scheme not in ("http", "https")
            or not parts.hostname
            or len(website) > 2048
            or any(c.isspace() or ord(c) < 0x20 for c in website)
        ):
            raise AccountError(
                f"{website!r} is not a web address (https://example.org/)", "website"
            )
    if timezone is not None and timezone not in _time_zones():
        raise AccountError(
            f"{timezone!r} is not a time zone (like Europe/Berlin or UTC)", "timezone"
        )


def check_application(app_type: str, name: str, redirect_uri: str) -> str:
    """The application's name to store (normalised), or AccountError saying what is wrong."""
    name = _clean_name(name, "an application name")
    if app_type not in APPLICATION_TYPES:
        raise AccountError("the application type is 'confidential' or 'public'", "type")
    problem = validate_registered_uri(redirect_uri, app_type)
    if problem:
        raise AccountError(problem, "redirect_uri")
    return name
