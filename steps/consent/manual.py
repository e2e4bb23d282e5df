"""The `manual` driver: a person approves in their own browser and pastes where it ended.

Used against a live deployment where no automation is wanted. A person is asked only when the
service wants its user: every visit is first followed anonymously (no session, no login), and
an outcome the service gives before any login (an error redirect, an error page) is taken as it
is. Every prompt is counted by kind (`stats`), and numbered on screen."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO
from urllib.parse import parse_qsl, urlsplit

from client_kit.redaction import is_secret_name
from steps.consent.anonymous import AnonymousLook
from steps.consent.base import (
    RUN_PROMPTS,
    ConsentDriver,
    DriverError,
    Outcome,
    RedirectResult,
    ServicePage,
)
from steps.consent.presets import Preset
from steps.html import text_of
from steps.http import HttpLayer
from steps.profile import Profile

TTY = "/dev/tty"
#: Any `<code>` element, for an out-of-band page when no preset says where the code is.
ANY_CODE = "code"


class NoTerminal(DriverError):
    """The manual driver has nobody to ask: a setup error for the whole run."""


class Console:
    """Talks to the operator on the controlling terminal (/dev/tty, never the captured
    stdin/stdout), with pytest's output capture suspended while asking."""

    def __init__(
        self,
        suspend: Callable[[], contextlib.AbstractContextManager[object]] | None = None,
        tty: str = TTY,
    ) -> None:
        self._suspend = suspend or contextlib.nullcontext
        self._tty = tty

    def check(self) -> None:
        """Fail at once, with a clear reason, when there is no terminal to ask on."""
        with self._streams():
            pass

    @contextlib.contextmanager
    def _streams(self) -> Iterator[tuple[TextIO, TextIO]]:
        """Separate read and write handles: a terminal is not seekable, so one "r+" text
        handle cannot be opened on it (io.UnsupportedOperation)."""
        try:
            reader = Path(self._tty).open(encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise NoTerminal(
                f"the manual consent driver needs a terminal to ask its questions on, and "
                f"{self._tty} cannot be opened ({exc}): run mb-oauth-conformance from an "
                "interactive terminal, or choose the form or browser driver"
            ) from None
        with reader, Path(self._tty).open("w", encoding="utf-8") as writer:
            fcntl.flock(reader, fcntl.LOCK_EX)  # pytest-xdist workers take turns at asking
            yield reader, writer

    def tell(self, text: str) -> None:
        """Show text without waiting for an answer."""
        with self._suspend(), self._streams() as (_, writer):
            writer.write(text)
            writer.flush()

    def ask(self, text: str) -> str:
        """Show text, return the operator's answer (one line)."""
        with self._suspend(), self._streams() as (reader, writer):
            writer.write(text)
            writer.flush()
            line = reader.readline()
        if not line:
            raise DriverError("no answer from the operator (end of input)")
        return line.strip()


class ManualDriver(ConsentDriver):
    """Prints the authorization URL and reads back the redirected URL or the shown code."""

    name = "manual"
    observes_pages = False
    visits_are_cheap = False

    def __init__(
        self,
        profile: Profile,
        console: Console,
        http: HttpLayer | None = None,
        preset: Preset | None = None,
    ) -> None:
        super().__init__()
        self.profile = profile
        self.console = console
        self.preset = preset
        self.http = http
        self.look = AnonymousLook(http, profile.base_url) if http is not None else None
        console.check()

    def open(self, authorize_url: str) -> Outcome:
        """Ask what the browser shows without the operator deciding anything."""
        if (seen := self._anonymous(authorize_url)) is not None:
            return seen
        answer = self._ask(
            "open",
            f"Open this URL as {self.profile.user.username!r}, but do NOT approve or deny:\n"
            f"  {authorize_url}\nPaste the address the browser was sent to, or type 'consent' "
            "if the service asks for consent, or 'error' if it shows an error page:\n> ",
        )
        return self._outcome(answer, authorize_url)

    def approve(self, authorize_url: str) -> Outcome:
        """Ask the operator to approve."""
        return self._decide(authorize_url, "approve", "APPROVE")

    def deny(self, authorize_url: str) -> Outcome:
        """Ask the operator to refuse."""
        return self._decide(authorize_url, "deny", "DENY (cancel)")

    def revoke_manually(self, client_id: str, scope: str | None = None) -> None:
        """Ask the operator to revoke the application on the website."""
        scope_text = f" (scopes: {scope})" if scope else ""
        self._ask(
            "revoke",
            f"On the website, as {self.profile.user.username!r}, revoke the access of the "
            f"application with Client ID {client_id}{scope_text}. Press Enter when done.\n> ",
        )

    def close(self) -> None:
        """Say how many times the person was asked (the run's own count), and add it to the
        run's figure (`RUN_PROMPTS`)."""
        for kind, count in self.stats.items():
            RUN_PROMPTS[kind] += count
        if self.prompts:
            with contextlib.suppress(DriverError):
                self.console.tell(f"\n{self.summary()}\n")

    def summary(self) -> str:
        """The prompts of the run, in a line."""
        kinds = ", ".join(f"{kind} {count}" for kind, count in self.stats.items())
        return f"[manual driver: {self.prompts} prompt(s) in this run: {kinds}]"

    def _decide(self, authorize_url: str, kind: str, verb: str) -> Outcome:
        if (seen := self._anonymous(authorize_url)) is not None:
            return seen
        answer = self._ask(
            kind,
            f"Open this URL as {self.profile.user.username!r} and {verb}:\n  {authorize_url}\n"
            "Paste the address the browser was sent to (it may fail to load: copy it anyway), "
            "or the code the page shows, or 'error' if the service shows an error page:\n> ",
        )
        self.used_one()
        return self._outcome(answer, authorize_url)

    def _anonymous(self, authorize_url: str) -> Outcome | None:
        return self.look.outcome(authorize_url) if self.look is not None else None

    def _ask(self, kind: str, text: str) -> str:
        self.stats[kind] += 1
        return self.console.ask(f"\n[prompt {self.prompts}: {kind}] {text}")

    def _outcome(self, answer: str, authorize_url: str) -> Outcome:
        self._learn(answer)
        if answer.lower() in ("error", "consent"):
            return ServicePage(authorize_url, None, consent=answer.lower() == "consent")
        if answer.startswith(("http://", "https://")) and self._on_service(answer):
            return self._service_page(answer)
        if answer.startswith(("http://", "https://", "urn:")):
            return RedirectResult.from_url(answer)
        if not answer:
            raise DriverError("empty answer from the operator")
        return RedirectResult(url=None, code=answer, oob=True)

    def _learn(self, answer: str) -> None:
        """Everything a person types is a secret to the masker: a pasted code, and the
        secret parameters (the code) of a pasted address."""
        if self.http is None or answer.lower() in ("error", "consent"):
            return
        if not answer.startswith(("http://", "https://", "urn:")):
            self.http.secrets.add(answer)
            return
        parts = urlsplit(answer)
        for query in (parts.query, parts.fragment):
            for name, value in parse_qsl(query, keep_blank_values=True):
                if is_secret_name(name):
                    self.http.secrets.add(value)

    def _on_service(self, url: str) -> bool:
        return urlsplit(url).netloc == urlsplit(self.profile.base_url).netloc

    def _service_page(self, url: str) -> Outcome:
        """A pasted address of the service itself: the out-of-band page (its code from the
        address, or else read from the page), or the page the browser stayed on."""
        params = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
        oob_path = self.preset.oob_path if self.preset else "/oauth2/oob"
        code = params.get("code") or None
        if code is None and urlsplit(url).path == oob_path:
            code = self._code_on_page(url)
        if code is None and urlsplit(url).path != oob_path:
            return ServicePage(url, None)
        return RedirectResult(url=url, code=code, params=params, oob=True)

    def _code_on_page(self, url: str) -> str | None:
        if self.http is None:
            return None
        html = self.http.request("GET", url).text
        return text_of(html, self.preset.oob_code if self.preset else ANY_CODE) or None
