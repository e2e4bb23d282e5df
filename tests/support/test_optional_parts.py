"""A machine without Chromium or a Secret Service: every test that needs one skips cleanly.

A newcomer's first ``make test`` must be green where these parts are absent. This runs the
browser and keyring tests of the whole tree in a subprocess with both
parts pointed at files that do not exist and nothing required, and wants every one of them
skipped by the one switch (tests/support/browser.py, tests/support/keyring.py) before any
of their fixtures started a server or a daemon. CI runs them for real in the main run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
USES = ("mark.browser", "mark.keyring", "tests.support.browser", "tests.support.keyring")
ABSENT = {
    "MB_OAUTH_CHROMIUM": "/nonexistent/chromium",
    "MB_OAUTH_GNOME_KEYRING": "/nonexistent/gnome-keyring-daemon",
    # A slim container has no dbus either: the message then names both daemons, on any machine.
    "MB_OAUTH_DBUS_DAEMON": "/nonexistent/dbus-daemon",
}


def files_using_optional_parts() -> list[str]:
    here = Path(__file__).resolve()
    return sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").rglob("test_*.py")
        if path != here and any(use in path.read_text(encoding="utf-8") for use in USES)
    )


def without_optional_parts() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MB_OAUTH_REQUIRE_")}
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    return env | ABSENT


def test_browser_and_keyring_tests_skip_cleanly_without_their_parts(tmp_path) -> None:
    files = files_using_optional_parts()
    assert "tests/suite/test_browser_driver.py" in files
    assert "tests/kit/test_keyring_secretservice.py" in files
    report = tmp_path / "junit.xml"
    selection = ["-m", "browser or keyring", f"--junitxml={report}", *files]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *selection],
        cwd=ROOT,
        env=without_optional_parts(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    outcomes = {
        (case.get("classname", "").rsplit(".", 1)[-1], case.get("name")): case
        for case in ET.parse(report).getroot().iter("testcase")  # noqa: S314 - our own report
    }
    modules = {module for module, _ in outcomes}
    assert {"test_browser_e2e", "test_browser_driver", "test_keyring_secretservice"} <= modules
    for name, case in outcomes.items():
        skipped = case.find("skipped")
        assert skipped is not None, f"{name} ran or failed without Chromium/Secret Service"
        reason = skipped.get("message", "")
        assert "Chromium is not installed" in reason or "gnome-keyring" in reason, (name, reason)


def test_where_ci_requires_them_a_missing_part_fails_instead() -> None:
    env = without_optional_parts() | {
        "MB_OAUTH_REQUIRE_BROWSER": "1",
        "MB_OAUTH_REQUIRE_KEYRING": "1",
    }
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rf",
            "-m",
            "browser or keyring",
            "tests/kit/test_browser_e2e.py",
            "tests/kit/test_keyring_secretservice.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stdout[-3000:]
    assert "MB_OAUTH_REQUIRE_BROWSER=1 but the system Chromium is not installed" in run.stdout
    keyring = "MB_OAUTH_REQUIRE_KEYRING=1 but dbus-daemon, gnome-keyring-daemon not installed"
    assert keyring in run.stdout
    assert " skipped" not in run.stdout.splitlines()[-1]
