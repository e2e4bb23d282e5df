"""The Tkinter example logs in against the bundled server, headless.

The test plays the user: it reads the authorization URL the example announces, approves
the consent page with the form driver, lets the 'browser' follow the redirect to the
example's loopback listener, and checks the window's own status label names the user.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

from tests.kit.cli_process import cli_env
from tests.kit.helpers import http_get
from tests.kit.test_integration import driver
from tests.support.display import xvfb_display

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tk_login.py"


def run_example(ref_server, tmp_path, app: dict) -> tuple[int, list[dict], str]:
    """The example pressing Log in at once; its JSON lines, approving the consent page."""
    with xvfb_display() as display:
        env = cli_env(ref_server, app, tmp_path)
        env["DISPLAY"] = display
        process = subprocess.Popen(
            [
                sys.executable,
                str(EXAMPLE),
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
                    http_get(driver(ref_server).authorize(event["url"]))
            code = process.wait(30)
        finally:
            killer.cancel()
            process.kill()
        stderr = process.stderr.read() if process.stderr else ""
    return code, events, stderr


#: after a login, whatever its end: only Log in works, and the URL is gone
IDLE = {"log in": True, "cancel": False, "paste": False, "use it": False}


def test_tk_example_logs_in_headless(ref_server, tmp_path) -> None:
    code, events, stderr = run_example(ref_server, tmp_path, ref_server.loopback_app)
    assert code == 0, stderr
    kinds = [event["kind"] for event in events]
    assert kinds[:2] == ["authorization_url", "waiting"] and "done" in kinds, kinds
    shown = events[-1]
    assert shown["kind"] == "shown" and shown["text"] == "Logged in as alice"
    assert shown["url"] == "" and shown["enabled"] == IDLE
    assert len(shown["labels"]) == 2 and all(label.endswith(":") for label in shown["labels"])


def test_tk_example_shows_a_bogus_client_id_at_once(ref_server, tmp_path) -> None:
    app = dict(ref_server.loopback_app, client_id="no-such-client-id")
    code, events, stderr = run_example(ref_server, tmp_path, app)
    assert code == 0, stderr
    assert [event["kind"] for event in events] == ["failed", "shown"], events
    shown = events[-1]
    assert shown["text"].startswith("Login failed: the service does not know the client id")
    assert shown["url"] == "" and shown["enabled"] == IDLE
