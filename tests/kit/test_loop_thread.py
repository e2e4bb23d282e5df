"""The first asynchronous calls of a fresh process import nothing on the event loop's thread.

An import on the loop's thread stalls every other task of the application (a whole HTTP stack
took 0.55-0.87 s on a slow machine). Here a new interpreter makes its session before the loop
runs, as an application does at start, then calls `alogin` (cancelled), `aaccess_token` (a
refresh), `auserinfo` and `arefresh` against the bundled server; an audit hook records every
module imported and on which thread. None may be imported on the loop's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from client_kit import FileStore
from tests.kit.helpers import FakeUI
from tests.kit.test_integration import loopback_browser, new_session

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import asyncio, json, sys, threading
from client_kit import FileStore, Session, profiles

base_url, ca_file, client_id, secret, store = sys.argv[1:6]
session = Session(
    profiles.custom(base_url, ca_bundle=ca_file), client_id, secret, store=FileStore(store)
)
on_loop: list[str] = []
loop_thread: list[int] = []


def hook(event, args):
    if event == "import" and loop_thread and threading.get_ident() == loop_thread[0]:
        on_loop.append(args[0])


async def first_calls() -> None:
    loop_thread.append(threading.get_ident())
    waiting = asyncio.Event()
    login = asyncio.create_task(
        session.alogin(
            ["profile"],
            open_browser=False,
            on_event=lambda event: event.kind == "waiting" and waiting.set(),
        )
    )
    await waiting.wait()
    login.cancel()
    await asyncio.gather(login, return_exceptions=True)
    await session.aaccess_token()
    await session.auserinfo()
    await session.arefresh()


sys.addaudithook(hook)
asyncio.run(first_calls())
print(json.dumps({"on_loop": on_loop, "refreshes": session.engine.refresh_count}))
"""


def test_the_first_asynchronous_calls_import_nothing_on_the_loops_thread(
    ref_server, tmp_path
) -> None:
    session = new_session(ref_server, tmp_path, ui=FakeUI(browser=loopback_browser(ref_server)))
    tokens = session.login(["profile"])
    session.close()
    store = FileStore(tmp_path / "tokens")
    store.save(session.key, tokens.expired_copy())  # the first call refreshes
    app = ref_server.loopback_app
    args = [ref_server.base_url, ref_server.ca_file, app["client_id"], app["client_secret"]]
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args, str(tmp_path / "tokens")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["refreshes"] == 2  # the expired token, then arefresh: the calls did run
    assert report["on_loop"] == []
