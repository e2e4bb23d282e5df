"""The browser's command line holds nothing of the login that another local user could use.

The attack: a browser started with the authorization URL in its argv shows it to every local
user (/proc/PID/cmdline); with its `state` and PKCE challenge another user authorizes the
victim's client id as their own account and sends their code to the listener, and
`mb-oauth login` ends "Logged in as bob". Here a real `mb-oauth login` starts a stand-in
browser (BROWSER=...), the test reads that process's command line as an attacker would, and,
where it may act as another user (root), runs the whole attack from an unprivileged uid.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.kit.cli_process import LoginProcess, cli_env
from tests.kit.helpers import follow_launcher, http_get
from tests.kit.test_integration import driver

#: the unprivileged user the attack runs as (nobody)
ATTACKER_UID = 65534

#: what BROWSER names: like xdg-open, it starts the browser with the URL and returns
OPENER = """#!/bin/sh
{python} {browser} "$1" >/dev/null 2>&1 &
"""
#: the browser: it stays up, like a real one, and says where it is
BROWSER = """
import os, sys, time
from pathlib import Path
Path({pid_file!r}).write_text(str(os.getpid()))
time.sleep(60)
"""

#: the other user: reads the browser's argv, opens what it names without following it, then
#: (given a URL on stdin) sends its own callback to the listener
ATTACKER = """
import http.client, json, sys
from urllib.parse import urlsplit
argv = open(f"/proc/{sys.argv[1]}/cmdline", "rb").read().split(b"\\0")
url = [word for word in argv if word][-1].decode()
seen = {"argv_url": url}
if url.startswith("http://"):
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.netloc, timeout=10)
    conn.request("GET", parts.path)
    answer = conn.getresponse()
    seen.update(status=answer.status, location=answer.getheader("Location"))
print(json.dumps(seen), flush=True)
callback = sys.stdin.readline().strip()
if callback:
    parts = urlsplit(callback)
    conn = http.client.HTTPConnection(parts.netloc, timeout=10)
    conn.request("GET", parts.path + "?" + parts.query)
    print(json.dumps({"callback_status": conn.getresponse().status}), flush=True)
"""


def start_login(ref_server, tmp_path: Path) -> tuple[LoginProcess, int]:
    """`mb-oauth login` with a stand-in browser; the login and the browser's pid."""
    pid_file = tmp_path / "browser.pid"
    browser = tmp_path / "browser.py"
    browser.write_text(BROWSER.format(pid_file=str(pid_file)))
    opener = tmp_path / "open-browser"
    opener.write_text(OPENER.format(python=sys.executable, browser=browser))
    opener.chmod(0o755)
    env = cli_env(ref_server, ref_server.loopback_app, tmp_path)
    env.update(DISPLAY=":99", BROWSER=str(opener))
    env.pop("SSH_CONNECTION", None)
    login = LoginProcess(env, "--json")
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline and login.process.poll() is None, login.stderr_lines
        time.sleep(0.02)
    return login, int(pid_file.read_text())


def command_line(pid: int) -> list[str]:
    """The browser's argv (the interpreter and script first, the URL it was given last)."""
    return [word for word in Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0") if word]


def secrets_of(url: str) -> list[str]:
    """The values of an authorization URL that let someone else finish or end the login."""
    query = parse_qs(urlsplit(url).query)
    return [query["state"][0], query["code_challenge"][0]]


def finish_as_the_user(ref_server, login: LoginProcess, browser_pid: int) -> tuple[int, dict, str]:
    """The user's browser opens what it was given and approves as alice."""
    target = driver(ref_server).authorize(follow_launcher(command_line(browser_pid)[-1]))
    assert isinstance(target, str)
    with contextlib.suppress(OSError):  # a login someone else ended has no listener left
        http_get(target)
    code, stdout, stderr = login.finish()
    return code, json.loads(stdout) if code == 0 else {}, stderr


def test_the_browser_command_line_holds_neither_state_nor_challenge(ref_server, tmp_path) -> None:
    login, pid = start_login(ref_server, tmp_path)
    try:
        argv = "\0".join(command_line(pid))
        shown = login.authorization_url()  # what the terminal shows the person: the whole URL
        for secret in secrets_of(shown):
            assert secret not in argv, "the browser's argv holds the login's state or challenge"
        assert "/oauth2/authorize" not in argv
        code, result, stderr = finish_as_the_user(ref_server, login, pid)
    finally:
        login.kill()
        subprocess.run(["kill", str(pid)], check=False)
    assert code == 0, stderr
    assert result["username"] == "alice"


def as_another_user(pid: int) -> subprocess.Popen[str]:
    # the system's interpreter: the test's may sit in a folder only its owner can enter
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
    return subprocess.Popen(
        [python, "-I", "-S", "-c", ATTACKER, str(pid)],
        user=ATTACKER_UID,
        group=ATTACKER_UID,
        extra_groups=[],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="acting as another local user needs root (the test above holds the argv rule)",
)
def test_another_user_cannot_log_the_application_in_to_their_account(ref_server, tmp_path) -> None:
    """The attack from uid 65534: it reads the browser's argv, opens what it names,
    and sends bob's code with the state it learned. It learns no state; even with the state
    (handed to it here, as if leaked some other way) its callback is refused; alice logs in."""
    login, pid = start_login(ref_server, tmp_path)
    attacker = as_another_user(pid)
    try:
        assert attacker.stdout is not None and attacker.stdin is not None
        seen = json.loads(attacker.stdout.readline())
        learned = seen.get("location") or seen["argv_url"]
        real = login.authorization_url()
        bobs = driver(ref_server, "bob").authorize(learned if "state=" in learned else real)
        assert isinstance(bobs, str)
        attacker.stdin.write(bobs + "\n")
        attacker.stdin.flush()
        sent = json.loads(attacker.stdout.readline())
        code, result, stderr = finish_as_the_user(ref_server, login, pid)
    finally:
        attacker.kill()
        login.kill()
        subprocess.run(["kill", str(pid)], check=False)
    assert code == 0, stderr
    assert result["username"] == "alice"
    assert not any(secret in learned for secret in secrets_of(real)), seen
    assert seen.get("status") == 403 and sent["callback_status"] == 403, (seen, sent)
