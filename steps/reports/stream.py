"""Pass a child's output through to the terminal and a log file, masked on the way.

Pytest's tracebacks can show fixtures' values (client secrets, tokens): the runner never lets
that text reach the terminal or disk unmasked, nor a control sequence other than pytest's own
colours (steps/safety/text.py: the plugin escapes the deployment's before pytest writes them;
this is the second net). Whole lines are masked; a partial line (pytest's
progress dots, a prompt) is flushed after a short quiet spell so progress stays visible.
"""

from __future__ import annotations

import codecs
import os
import selectors
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import IO

from steps.reports.redact import last_pass
from steps.safety.text import terminal_safe

QUIET_SECONDS = 0.2
CHUNK = 65536


class MaskedTee:
    """Masks text line by line and writes it to a stream and a log file."""

    def __init__(self, secrets: Iterable[str], out: IO[str], log: IO[str]) -> None:
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
    out: IO[str],
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
