"""The `manual` driver: a person approves in their own browser and pastes where it ended.

Used against a live deployment where no automation is wanted; the suite keeps the number of
approvals low (shared grants) and says how many are left."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from steps.consent.base import ConsentDriver, DriverError, Outcome, RedirectResult, ServicePage
from steps.profile import Profile


class Console:
    """Talks to the operator on the terminal (/dev/tty when there is one, else stdin/stdout),
    with pytest's output capture suspended while asking."""

    def __init__(
        self, suspend: Callable[[], contextlib.AbstractContextManager[object]] | None = None
    ) -> None:
        self._suspend = suspend or contextlib.nullcontext

    @contextlib.contextmanager
    def _streams(self) -> Iterator[tuple[TextIO, TextIO]]:
        try:
            tty = Path("/dev/tty").open("r+", encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError:
            yield sys.stdin, sys.stdout
            return
        with tty:
            yield tty, tty

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

    def __init__(self, profile: Profile, console: Console) -> None:
        super().__init__()
        self.profile = profile
        self.console = console

    def open(self, authorize_url: str) -> Outcome:
        """Ask what the browser shows without the operator deciding anything."""
        answer = self.console.ask(
            f"\n{self._banner()}Open this URL as {self.profile.user.username!r}, but do NOT "
            f"approve or deny:\n  {authorize_url}\nPaste the address the browser was sent to, "
            "or type 'consent' if the service asks for consent, or 'error' if it shows an "
            "error page:\n> "
        )
        return self._outcome(answer, authorize_url)

    def approve(self, authorize_url: str) -> Outcome:
        """Ask the operator to approve."""
        return self._decide(authorize_url, "APPROVE")

    def deny(self, authorize_url: str) -> Outcome:
        """Ask the operator to refuse."""
        return self._decide(authorize_url, "DENY (cancel)")

    def revoke_manually(self, client_id: str, scope: str | None = None) -> None:
        """Ask the operator to revoke the application on the website."""
        scope_text = f" (scopes: {scope})" if scope else ""
        self.console.ask(
            f"\nOn the website, as {self.profile.user.username!r}, revoke the access of the "
            f"application with Client ID {client_id}{scope_text}. Press Enter when done.\n> "
        )

    def _decide(self, authorize_url: str, verb: str) -> Outcome:
        answer = self.console.ask(
            f"\n{self._banner()}Open this URL as {self.profile.user.username!r} and {verb}:\n"
            f"  {authorize_url}\nPaste the address the browser was sent to (it may fail to "
            "load: copy it anyway), or the code the page shows, or 'error' if the service "
            "shows an error page:\n> "
        )
        self.used_one()
        return self._outcome(answer, authorize_url)

    def _banner(self) -> str:
        if self.remaining is None:
            return ""
        return f"[about {self.remaining} approval(s) left in this run] "

    @staticmethod
    def _outcome(answer: str, authorize_url: str) -> Outcome:
        if answer.lower() in ("error", "consent"):
            return ServicePage(authorize_url, None, consent=answer.lower() == "consent")
        if answer.startswith(("http://", "https://", "urn:")):
            return RedirectResult.from_url(answer)
        if not answer:
            raise DriverError("empty answer from the operator")
        return RedirectResult(url=None, code=answer, oob=True)
