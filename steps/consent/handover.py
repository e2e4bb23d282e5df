"""A person's browser session, handed over once: the manual driver's way to ask once.

A manual run needs a code for every authorization, and each is a prompt (a full run with
--run-lasting: 114). Where the service's pages have a preset (bundled, musicbrainz), the person
can instead log in in their own browser and paste the Cookie header it sends to the service
(`[consent.manual] hand_over_session = true`): the suite then answers the consent pages as that
user with the form driver, never with a password, and asks again only when the session ends.
The cookies are secrets of the run: masked wherever they would appear.
"""

from __future__ import annotations

from collections.abc import Callable
from http.cookies import CookieError, SimpleCookie
from typing import TypeVar
from urllib.parse import urlsplit

import httpx

from steps.consent.base import DriverError, SessionEnded
from steps.consent.form import FormDriver
from steps.consent.presets import Preset
from steps.http.layer import HttpLayer
from steps.profiles.profile import TargetProfile

T = TypeVar("T")
#: A session that ends this many times in a run is given up (the person is asked each time).
HANDOVERS = 3


class Handover:
    """The form driver on the person's session; asks for the session (once, or again when
    it ended) through `ask`."""

    def __init__(
        self, profile: TargetProfile, http: HttpLayer, preset: Preset, ask: Callable[[str], str]
    ) -> None:
        self.profile, self.http, self.preset, self.ask = profile, http, preset, ask
        self._driver: FormDriver | None = None
        self.handed = 0

    def run(self, act: Callable[[FormDriver], T]) -> T:
        """`act` on the form driver; when the session has ended, ask for a new one."""
        while True:
            driver = self._driver or self._take()
            try:
                return act(driver)
            except SessionEnded:
                self.close()
                if self.handed >= HANDOVERS:
                    raise

    def close(self) -> None:
        """Forget the session."""
        if self._driver is not None:
            self._driver.close()
            self._driver = None

    def _take(self) -> FormDriver:
        host = urlsplit(self.profile.base_url).hostname or ""
        answer = self.ask(
            f"Log in at {self.profile.base_url} as {self.profile.user.username!r} in your "
            "browser, then paste the Cookie header it sends there (developer tools, Network, "
            f"any request to {host}, Request Headers, Cookie). The suite answers the consent "
            "pages with it from now on, as you:\n> "
        )
        self.handed += 1
        cookies = cookie_pairs(answer)
        driver = FormDriver(self.profile, self.http, self.preset)
        driver.signs_in = False
        for value in cookies.values():
            self.http.redactor.learn(value)
        hooks = driver.client.event_hooks
        hooks["request"] = [
            *hooks.get("request", []),
            CarriedCookies(self.profile.base_url, cookies),
        ]
        driver.client.event_hooks = hooks
        self._driver = driver
        return driver


class CarriedCookies:
    """The person's cookies, put on every request to the service's origin by the suite itself.

    Python's cookie jar is no place for them: it drops a cookie set for a host name without a
    dot (`https://localhost:5443`: http.cookiejar files it under "localhost.local"), and a
    browser session is a cookie of the very host the person used, whatever its name. A cookie
    the service sets later (a renewed session, a form token) is the jar's, and wins over a
    pasted one of the same name. Nothing goes to another origin."""

    def __init__(self, base_url: str, cookies: dict[str, str]) -> None:
        self.origin = _origin(base_url)
        self.cookies = dict(cookies)

    def __call__(self, request: httpx.Request) -> None:
        if _origin(str(request.url)) != self.origin:
            return
        sent = request.headers.get("cookie", "")
        have = {pair.split("=", 1)[0].strip() for pair in sent.split(";") if "=" in pair}
        added = [f"{name}={value}" for name, value in self.cookies.items() if name not in have]
        if added:
            request.headers["Cookie"] = "; ".join(filter(None, [sent, *added]))


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return (
        parts.scheme,
        (parts.hostname or "").lower(),
        parts.port or _DEFAULT_PORTS.get(parts.scheme),
    )


_DEFAULT_PORTS = {"https": 443, "http": 80}


def cookie_pairs(header: str) -> dict[str, str]:
    """The cookies of a pasted Cookie header (`a=b; c=d`, a leading "Cookie:" allowed)."""
    text = header.strip().removeprefix("Cookie:").removeprefix("cookie:").strip()
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(text)
    except CookieError as error:
        raise DriverError(f"that is not a Cookie header: {error}") from None
    if not jar:
        raise DriverError("that is not a Cookie header (name=value; name=value)")
    return {name: morsel.value for name, morsel in jar.items()}
