"""tools/matrix_picture: the picture of a deployment matrix in docs/checking-a-deployment.md,
rendered in Chromium."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

from steps.run.compare import write_matrix
from tests.suite.matrix_data import new_run, other_run

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "matrix_picture"


def picture(*args: str | Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(TOOL), *map(str, args)]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.browser
def test_the_picture_is_a_png_of_the_asked_size(tmp_path: Path) -> None:
    write_matrix([new_run(tmp_path / "a"), other_run(tmp_path / "b")], tmp_path / "out")
    done = picture(tmp_path / "out" / "matrix.html", tmp_path / "m.png", "--width", "900",
                   "--height", "600")  # fmt: skip
    assert done.returncode == 0, done.stderr
    head = (tmp_path / "m.png").read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", head[16:24]) == (900, 600)


def test_a_missing_page_is_exit_2(tmp_path: Path) -> None:
    done = picture(tmp_path / "none.html", tmp_path / "m.png")
    assert done.returncode == 2 and "no such page" in done.stderr
    assert not (tmp_path / "m.png").exists()
