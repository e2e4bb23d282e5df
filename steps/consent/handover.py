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
        for name, value in cookies.items():
            self.http.redactor.learn(value)
            driver.client.cookies.set(name, value, domain=host)
        self._driver = driver
        return driver


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
