"""Section 3: the client kit: start-up of `mb-oauth` commands and the memory of a login.

Start-up: `mb-oauth --help` and `mb-oauth token` (a valid token in a file store, so no network)
against `python -c "import httpx, click, keyring"`, interleaved, each a median and a ratio
to the baseline's median. Memory: the peak RSS (wait4) of `mb-oauth login --no-browser` while
this process plays the user in the bundled server's login and consent forms, over loopback.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from client_kit.testing import BundledServerUser

from .common import ROOT, Pinning, log, median
from .servers import PinnedServer

USER, PASSWORD = "kituser", "kit-password-1"
_URL = re.compile(r"https://\S+/oauth2/authorize\?\S+")


def _kit_script() -> Path | None:
    script = Path(sys.executable).parent / "mb-oauth"
    return script if script.exists() and (ROOT / "client_kit" / "_cli.py").exists() else None


def _login(env: dict[str, str], script: Path, server: PinnedServer) -> dict:
    """A scripted loopback login; the child's peak RSS from wait4."""
    # Through a small launcher: the peak RSS that wait4 reports for a child forked from this
    # (large) process would include this process's memory, copied at fork.
    rss_file = Path(env["HOME"]) / "login-maxrss"
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _LAUNCHER,
            str(rss_file),
            str(script),
            "login",
            "--no-browser",
            "--scope",
            "profile",
            "--timeout",
            "60",
        ],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in process.stderr or ():
            lines.put(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    started = time.monotonic()
    try:
        url = None
        while url is None and time.monotonic() - started < 30:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                if process.poll() is not None:
                    break
                continue
            found = _URL.search(line)
            url = found.group(0) if found else None
        if url is None:
            raise RuntimeError("mb-oauth login printed no authorization URL")
        user = BundledServerUser(server.base_url, USER, PASSWORD, ca_bundle=server.ca_file)
        user.approve(url)  # the login and consent forms, then the redirect to the listener
        process.wait(timeout=60)
    except BaseException:
        process.kill()
        process.wait()
        raise
    wall = time.monotonic() - started
    if process.returncode != 0:
        raise RuntimeError(f"mb-oauth login exited with {process.returncode}")
    return {"max_rss_mb": round(int(rss_file.read_text()) / 1024, 1), "wall_s": round(wall, 2)}


_LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _time(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        command,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
        timeout=60,
    )
    return time.perf_counter() - started


def run(reps: int, short: bool, notes: list[str]) -> dict:
    script = _kit_script()
    if script is None:
        return {"available": False, "reason": "client_kit/_cli.py (mb-oauth) not found"}
    pin = Pinning.choose(True).load
    folder = Path(tempfile.mkdtemp(prefix="mb-bench-kit-"))
    try:
        server = PinnedServer(folder / "data", None)
        server.start()
        try:
            server.add_user(USER, PASSWORD, email="kit@example.org")
            app = server.add_app(USER, "bench kit", "public", "http://localhost/callback")
            env = {
                "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "HOME": str(folder),
                "XDG_CONFIG_HOME": str(folder / "config"),
                "MB_OAUTH_SERVICE": server.base_url,
                "MB_OAUTH_CA_BUNDLE": server.ca_file,
                "MB_OAUTH_CLIENT_ID": app["client_id"],
                "MB_OAUTH_CLIENT_SECRET": app["client_secret"],
                "MB_OAUTH_STORE": f"file:{folder / 'store'}",
                "LANG": os.environ.get("LANG", "C.UTF-8"),
            }
            login: dict
            try:
                login = _login(env, script, server)
            except Exception as error:  # reported, and the start-up figures still run
                login = {"max_rss_mb": None, "reason": f"login failed: {error}"}
            commands = {
                "baseline": [sys.executable, "-c", "import httpx, click, keyring"],
                "help": [str(script), "--help"],
                "token": [str(script), "token"],
            }
            labels = {
                "baseline": 'python -c "import httpx, click, keyring"',
                "help": "mb-oauth --help",
                "token": "mb-oauth token (valid stored token)",
            }
            if login.get("max_rss_mb") is None:  # no stored token: token would fail
                commands.pop("token")
            commands = {k: [*Pinning.prefix(pin), *v] for k, v in commands.items()}
            times: dict[str, list[float]] = {k: [] for k in commands}
            for command in commands.values():  # warm the file cache once
                _time(command, env)
            for _ in range(reps):
                for name, command in commands.items():
                    times[name].append(_time(command, env))
        finally:
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    base = times["baseline"]
    result: dict = {"available": True, "repetitions": reps, "login": login}
    for name in commands:
        ratios = [t / b for t, b in zip(times[name], base, strict=True)]
        result[name] = {
            "label": labels[name],
            "median_ms": round(1000 * (median(times[name]) or 0), 1),
            "ratio": round(median(ratios) or 0, 3),
        }
    log(
        "kit start-up: "
        + ", ".join(f"{k} {result[k]['median_ms']} ms" for k in commands)
        + f"; login peak RSS {login.get('max_rss_mb')} MB"
    )
    return result
