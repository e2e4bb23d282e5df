"""A headless X display (Xvfb) and Tk for GUI tests: skipped where either is missing, unless
CI requires them with MB_OAUTH_REQUIRE_DISPLAY=1 (the same switch as the browser and keyring).

Tk is a part of its own: Debian's python3 ships without it (package python3-tk), so a machine
with Xvfb can still lack what the Tk example imports."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import pytest

#: seconds Xvfb may take to announce its display number
START_TIMEOUT = 20


def _missing(reason: str) -> NoReturn:
    if os.environ.get("MB_OAUTH_REQUIRE_DISPLAY") == "1":
        pytest.fail(f"MB_OAUTH_REQUIRE_DISPLAY=1 but {reason}")
    pytest.skip(reason)


def required_xvfb() -> str:
    path = shutil.which("Xvfb")
    if path:
        return path
    _missing("Xvfb is not installed (apt-get install xvfb)")


def require_tkinter() -> None:
    """Tk in this interpreter, which is the one that runs the Tk example."""
    if importlib.util.find_spec("tkinter") is None:
        _missing(f"{sys.executable} has no tkinter (apt-get install python3-tk)")


@contextmanager
def xvfb_display() -> Iterator[str]:
    """A private X server on a free display number; yields the DISPLAY value."""
    executable = required_xvfb()
    read, write = os.pipe()
    process = subprocess.Popen(
        [executable, "-displayfd", str(write), "-nolisten", "tcp", "-screen", "0", "800x600x24"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        number = _read_display(read)
        yield f":{number}"
    finally:
        os.close(read)
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _read_display(fd: int) -> str:
    import select

    ready, _, _ = select.select([fd], [], [], START_TIMEOUT)
    data = os.read(fd, 64).decode().strip() if ready else ""
    if not data.isdigit():
        raise AssertionError("Xvfb did not start (no display number announced)")
    return data
