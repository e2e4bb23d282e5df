"""Pass a child's output through to the terminal and a log file, masked on the way.

Pytest's tracebacks can show fixtures' values (client secrets, tokens): the runner never lets
that text reach the terminal or disk unmasked, nor a control sequence other than pytest's own
colours (steps/safety/text.py: the plugin escapes the deployment's before pytest writes them;
this is the second net). Whole lines are masked; a partial line (pytest's
progress dots, a prompt) is flushed after a short quiet spell so progress stays visible.

The log gets everything. The terminal gets pytest's progress (and the manual driver's
questions, which come during it) but not pytest's closing report: a run against a deployment
with known deviations fails dozens of scenarios on purpose, and their tracebacks would bury the
verdicts. `ProgressOnly` holds that report back (`mb-oauth-conformance -v` shows it).
"""

from __future__ import annotations

import codecs
import os
import re
import selectors
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

from steps.reports.redact import last_pass
from steps.safety.text import terminal_safe

QUIET_SECONDS = 0.2
CHUNK = 65536
#: Where pytest's closing report starts: a section header (FAILURES, ERRORS, warnings summary,
#: short test summary info, a generated report file) or, without one, its final count.
CLOSING = re.compile(
    r"^(?:=+|_+|-+) .* (?:=+|_+|-+)$"
    r"|^(?:\d+ (?:passed|failed|skipped|errors?|deselected|xfailed|xpassed)\b|no tests ran).* in "
)
#: A line of pytest's short summary that names a failed scenario.
FAILED_LINE = re.compile(r"^(?:FAILED|ERROR) ")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Sink(Protocol):
    """Where text is written: a text stream, or a filter in front of one."""

    def write(self, text: str, /) -> object: ...

    def flush(self) -> None: ...


class ProgressOnly:
    """Passes pytest's progress to `out` and holds back its closing report (the failures'
    tracebacks, the list of failed scenarios, warnings, the final count) in `held`."""

    def __init__(self, out: Sink) -> None:
        self.out = out
        self.held: list[str] = []
        self._closing = False
        self._line = ""  # the part of the current line written so far

    def write(self, text: str) -> int:
        for piece in text.splitlines(keepends=True):
            self._line += piece
            ended = piece.endswith(("\n", "\r"))
            if not self._closing and ended:
                self._closing = bool(CLOSING.match(ANSI.sub("", self._line).strip()))
            if self._closing:
                if ended:
                    self.held.append(self._line)
            else:
                self.out.write(piece)
            if ended:
                self._line = ""
        return len(text)

    def flush(self) -> None:
        self.out.flush()

    @property
    def failed_scenarios(self) -> int:
        """How many failed scenarios the held-back report lists."""
        return sum(1 for line in self.held if FAILED_LINE.match(ANSI.sub("", line)))


class MaskedTee:
    """Masks text line by line and writes it to a stream and a log file."""

    def __init__(self, secrets: Iterable[str], out: Sink, log: Sink) -> None:
        self.redactor = last_pass(secrets)
        self.out, self.log = out, log
        self.pending = ""

    def feed(self, text: str) -> None:
        """Emit the complete lines of text; keep the rest until more arrives or it is quiet."""
        self.pending += text
        head, sep, tail = self.pending.rpartition("\n")
        if sep:
            self._emit(head + sep)
            self.pending = tail

    def flush(self) -> None:
        """Emit whatever partial line is pending."""
        if self.pending:
            self._emit(self.pending)
            self.pending = ""

    def _emit(self, text: str) -> None:
        masked = terminal_safe(self.redactor.redact(text))
        for stream in (self.out, self.log):
            stream.write(masked)
            stream.flush()


def pump(fd: int, tee: MaskedTee) -> None:
    """Copy fd to the tee until EOF, flushing a partial line when the child goes quiet."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            if not selector.select(QUIET_SECONDS):
                tee.flush()
                continue
            chunk = os.read(fd, CHUNK)
            if not chunk:
                break
            tee.feed(decoder.decode(chunk))
    tee.feed(decoder.decode(b"", final=True))
    tee.flush()


def run_masked(
    command: list[str],
    secrets: Iterable[str],
    out: Sink,
    log_path: Path,
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Run a command with its stdout and stderr masked into `out` and `log_path`."""
    with log_path.open("w", encoding="utf-8") as log:
        tee = MaskedTee(secrets, out, log)
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=cwd, env=env
        )
        assert process.stdout is not None
        pump(process.stdout.fileno(), tee)
        process.stdout.close()
        return process.wait()
