"""The bootstrap a newcomer meets first (`make venv`, run by both README commands) says nothing
but what goes wrong: setuptools' editable-install warning box is not shown, and the venv works.

Run for real on a copy of the tree (a fresh venv, the pinned dependencies from the registry),
as on a fresh machine."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_packaging import ROOT, source_files

pytestmark = pytest.mark.slow


def test_the_bootstrap_is_quiet_and_its_venv_works(tmp_path: Path) -> None:
    copy = tmp_path / "checkout"
    for name in source_files():
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy / name)
    done = subprocess.run(
        ["make", "--no-print-directory", "venv", f"PYTHON={sys.executable}"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "BuildBackendWarning" not in output, output
    assert "same name as your package" not in output, output
    helped = subprocess.run(
        [str(copy / ".venv/bin/mb-oauth-conformance"), "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert helped.returncode == 0 and "--report-dir" in helped.stdout
