"""A scripted person for the `manual` driver: reads a prompt, does what it asks on the bundled
server with the project's form driver (their own browser), and answers as a person would.

Used in-process (a profile naming `tests.suite.manual_person:driver`) and by the tmux test,
which feeds it the text it reads from a real terminal. With MB_PERSON_SLIPS=k the person slips
on every k-th prompt: they first paste their previous answer again (a stale clipboard), and the
right one when asked again."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from steps.consent.base import ConsentDriver, RedirectResult, ServicePage
from steps.consent.form import FormDriver
from steps.consent.manual import ManualDriver, OperatorConsole
from steps.consent.presets import resolve_preset
from steps.http.layer import HttpLayer
from steps.profiles.profile import TargetProfile

URL = re.compile(r"^\s+(https?://\S+)\s*$", re.MULTILINE)
AGAIN = re.compile(r"\[prompt \d+, again\]")
REVOKE = re.compile(r"Client ID (\S+?)(?: \(scopes: ([^)]*)\))?\. Press Enter")


@dataclass
class Person:
    """Answers prompts with the form driver; `answered` counts prompts by kind."""

    browser: ConsentDriver
    base_url: str
    paste_oob_address: bool = True
    answered: dict[str, int] = field(default_factory=dict)
    #: Slip on every k-th prompt (0: never): paste the previous answer first.
    slip_every: int = 0
    slips: int = 0
    _last: str = ""
    _right: str = ""

    def answer(self, prompt: str) -> str:
        """The line the person types for a prompt."""
        if AGAIN.search(prompt):
            _log("again", " ".join(prompt.split())[:300])
            return self._right
        right = self._answer(prompt)
        stale, self._last = self._last, right
        if self.slip_every and self.total % self.slip_every == 0 and stale.startswith("http"):
            self.slips += 1
            self._right = right
            return stale
        return right

    def _answer(self, prompt: str) -> str:
        if "revoke the access" in prompt:
            return self._revoke(prompt)
        if "paste the Cookie header" in prompt:
            return self._hand_over()
        urls = URL.findall(prompt)
        if not urls:
            raise AssertionError(f"a prompt without a URL: {prompt!r}")
        url = urls[-1]
        if "APPROVE" in prompt:
            return self._note("approve", self._say(self.browser.approve(url)))
        if "DENY" in prompt:
            return self._note("deny", self._say(self.browser.deny(url)))
        return self._note("open", self._say(self.browser.open(url)))

    def _hand_over(self) -> str:
        """Log in in their own browser and copy the Cookie header it sends to the service."""
        assert isinstance(self.browser, FormDriver)
        self.browser.log_in()
        jar = self.browser.client.cookies.jar
        return self._note("session", "; ".join(f"{c.name}={c.value}" for c in jar))

    def _revoke(self, prompt: str) -> str:
        match = REVOKE.search(prompt)
        if match is None:
            raise AssertionError(f"cannot read the revocation prompt: {prompt!r}")
        self.browser.revoke_manually(match.group(1), match.group(2))
        return self._note("revoke", "")

    def _note(self, kind: str, answer: str) -> str:
        self.answered[kind] = self.answered.get(kind, 0) + 1
        _log("answered", f"{kind} {os.environ.get('PYTEST_CURRENT_TEST', '?').split(' ')[0]}")
        return answer

    def _say(self, outcome: object) -> str:
        if isinstance(outcome, RedirectResult) and outcome.oob:
            if not self.paste_oob_address:
                return outcome.code or ""
            query = urlencode({"code": outcome.code or ""})
            parts = urlsplit(outcome.url or self.base_url)
            return f"{parts.scheme}://{parts.netloc}{parts.path}?{query}"
        if isinstance(outcome, RedirectResult):
            return outcome.url or ""
        assert isinstance(outcome, ServicePage)
        return "consent" if outcome.consent else "error"

    @property
    def total(self) -> int:
        """Prompts answered."""
        return sum(self.answered.values())


def _log(what: str, text: str) -> None:
    """With MB_PERSON_LOG set, one line per answer and per message (for tools/bench)."""
    if log := os.environ.get("MB_PERSON_LOG"):
        with Path(log).open("a", encoding="utf-8") as handle:
            handle.write(f"{what} {text}\n")


class PersonConsole(OperatorConsole):
    """A console whose operator is a scripted person (no terminal)."""

    def __init__(self, person: Person) -> None:
        super().__init__()
        self.person = person

    def ask(self, text: str) -> str:
        """Hand the prompt to the person."""
        return self.person.answer(text)

    def check(self) -> None:
        """No terminal needed."""

    def tell(self, text: str) -> None:
        """What the run tells its operator (its own prompt count) goes to the person's log."""
        _log("said", " ".join(text.split()))


def person_for(profile: TargetProfile) -> Person:
    """A person using their own browser session (the form driver, bundled preset)."""
    http = HttpLayer(profile.ca_file)
    browser = FormDriver(profile, http, resolve_preset(profile.consent.preset, {}))
    slips = int(os.environ.get("MB_PERSON_SLIPS", "0") or 0)
    return Person(browser, profile.base_url, slip_every=slips)


def driver(profile: TargetProfile, http: HttpLayer) -> ConsentDriver:
    """The manual driver answered in-process by a scripted person (profile `module:callable`):
    what `make_driver` builds for `driver = "manual"`, with the person instead of a terminal."""
    preset = resolve_preset(profile.consent.preset, profile.consent.form)
    return ManualDriver(profile, PersonConsole(person_for(profile)), http, preset)
