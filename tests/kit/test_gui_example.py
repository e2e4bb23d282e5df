"""The GUI examples log in against the bundled server, headless: Tk under Xvfb, Qt (PySide6)
on its offscreen platform.

The test plays the user: it reads the address the example announces for the browser, lets
`client_kit.testing` approve the consent page and deliver the redirect to the example's
loopback listener, and checks the window's own status line names the user.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kit.cli_process import cli_env
from tests.kit.conftest import PASSWORD
from tests.support.display import require_tkinter, xvfb_display

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@contextlib.contextmanager
def tk_screen() -> Iterator[dict[str, str]]:
    require_tkinter()
    with xvfb_display() as display:
        yield {"DISPLAY": display}


@contextlib.contextmanager
def qt_screen() -> Iterator[dict[str, str]]:
    yield {"QT_QPA_PLATFORM": "offscreen"}


SCREENS = {"tk_login.py": tk_screen, "qt_login.py": qt_screen}


def run_example(example: str, ref_server, tmp_path, app: dict) -> tuple[int, list[dict], str]:
    """The example pressing Log in at once; its JSON lines, approving the consent page."""
    from client_kit.testing import BundledServerUser

    user = BundledServerUser(ref_server.base_url, "alice", PASSWORD, ca_bundle=ref_server.ca_file)
    with SCREENS[example]() as screen:
        env = {**cli_env(ref_server, app, tmp_path), **screen}
        process = subprocess.Popen(
            [
                sys.executable,
                str(EXAMPLES / example),
                "--service",
                ref_server.base_url,
                "--ca-bundle",
                ref_server.ca_file,
                # One argument: a client id may begin with "-", which argparse
                # would otherwise read as an option.
                f"--client-id={app['client_id']}",
                "--store",
                f"file:{tmp_path / 'store'}",
                "--no-browser",
                "--start",
                "--exit-when-done",
                "--timeout",
                "60",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        killer = threading.Timer(90, process.kill)  # never hang the suite
        killer.start()
        try:
            events = []
            assert process.stdout is not None
            for line in process.stdout:
                event = json.loads(line)
                events.append(event)
                if event["kind"] == "authorization_url":
                    user.approve(event["browser_url"])
            code = process.wait(30)
        finally:
            killer.cancel()
            process.kill()
        stderr = process.stderr.read() if process.stderr else ""
    return code, events, stderr


#: after a login, whatever its end: only Log in works, and the URL is gone
IDLE = {"log in": True, "cancel": False, "paste": False, "use it": False}


@pytest.mark.parametrize("example", sorted(SCREENS))
def test_the_example_logs_in_headless(example, ref_server, tmp_path) -> None:
    code, events, stderr = run_example(example, ref_server, tmp_path, ref_server.loopback_app)
    assert code == 0, stderr
    kinds = [event["kind"] for event in events]
    assert kinds[:2] == ["authorization_url", "waiting"] and "done" in kinds, kinds
    assert events[0]["browser_url"] != events[0]["url"]  # the launcher, not the URL itself
    shown = events[-1]
    assert shown["kind"] == "shown" and shown["text"] == "Logged in as alice"
    assert shown["url"] == "" and shown["enabled"] == IDLE
    assert len(shown["labels"]) == 2 and all(label.endswith(":") for label in shown["labels"])


@pytest.mark.parametrize("example", sorted(SCREENS))
def test_the_example_shows_a_bogus_client_id_at_once(example, ref_server, tmp_path) -> None:
    app = dict(ref_server.loopback_app, client_id="no-such-client-id")
    code, events, stderr = run_example(example, ref_server, tmp_path, app)
    assert code == 0, stderr
    assert [event["kind"] for event in events] == ["failed", "shown"], events
    shown = events[-1]
    assert shown["text"].startswith("Login failed: the service does not know the client id")
    assert shown["url"] == "" and shown["enabled"] == IDLE
