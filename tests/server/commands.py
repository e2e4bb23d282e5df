"""The server's command line, run as a person runs it: `python -m reference_server ...`."""

from __future__ import annotations

import subprocess
import sys


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reference_server", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
