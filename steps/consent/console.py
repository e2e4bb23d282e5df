"""Where the manual driver talks to its operator: the controlling terminal.

Answers are always read from /dev/tty (pytest captures stdin). Questions go where pytest's own
output goes when that reaches the operator's terminal (pytest's stdout with its capture
suspended: a terminal, or the pipe `mb-oauth-conformance` relays to one), so a question comes
after the progress dots printed before it, never in the middle of their line; elsewhere (an
xdist worker, output sent to a file) they go to /dev/tty. Either way a question starts on a line
of its own."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from steps.consent.base import DriverError
from steps.safety.text import shown

TTY = "/dev/tty"
#: Set by mb-oauth-conformance when it relays pytest's output to a terminal
#: (steps/run/pytest_run.py).
RELAYED_TO_TERMINAL = "MB_OAUTH_OUTPUT_IS_TERMINAL"


class NoTerminal(DriverError):
    """The manual driver has nobody to ask: a setup error for the whole run."""


class OperatorConsole:
    """Talks to the operator: reads on the controlling terminal, writes where pytest's output
    reaches them (see the module), with pytest's output capture suspended while asking."""

    def __init__(
        self,
        suspend: Callable[[], contextlib.AbstractContextManager[object]] | None = None,
        tty: str = TTY,
        *,
        worker: bool = False,
    ) -> None:
        self._suspend = suspend or contextlib.nullcontext
        self._tty = tty
        self._worker = worker

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
            yield reader, self._output(writer)

    def _output(self, tty: TextIO) -> TextIO:
        """pytest's stdout when it reaches the operator in order with pytest's output (checked
        while the capture is suspended), else the terminal itself."""
        if self._worker or self._tty != TTY:
            return tty
        try:
            terminal = os.isatty(sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            return tty
        return sys.stdout if terminal or os.environ.get(RELAYED_TO_TERMINAL) == "1" else tty

    def tell(self, text: str) -> None:
        """Show text without waiting for an answer (control characters escaped: a prompt may
        quote what the deployment sent)."""
        with self._suspend(), self._streams() as (_, writer):
            writer.write(shown(text))
            writer.flush()

    def ask(self, text: str) -> str:
        """Show text, return the operator's answer (one line)."""
        with self._suspend(), self._streams() as (reader, writer):
            writer.write(shown(text))
            writer.flush()
            line = reader.readline()
        if not line:
            raise DriverError("no answer from the operator (end of input)")
        return line.strip()
