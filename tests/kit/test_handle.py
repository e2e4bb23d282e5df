"""A login beside a GUI's event loop (handle, events as data, asyncio)."""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest

from client_kit import LoginHandle, Session, _errors
from client_kit._flow import KINDS
from tests.kit.helpers import (
    CLIENT_ID,
    CLIENT_SECRET,
    GUARD,
    FakeUI,
    http_get,
    make_tokens,
    query,
    redirect_with,
    wait_for,
)
from tests.kit.test_integration import driver, new_session
from tests.kit.test_login import server  # noqa: F401 - the recording token endpoint


class NoReadingUI(FakeUI):
    """A GUI's interface: the kit must never read a line from it behind its back."""

    concurrent_read = False

    def read_line(self, prompt: str) -> str | None:
        raise AssertionError(f"read_line called from {threading.current_thread().name}")


def url_of(handle: LoginHandle) -> str:
    wait_for(lambda: handle.request is not None)
    assert handle.request is not None
    return handle.request.url


def kinds(events) -> list[str]:
    return [event.kind for event in events if event.kind != "tick"]


def test_events_as_data_from_url_to_done(mb_profile, memory_store, server) -> None:  # noqa: F811
    session = Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=NoReadingUI())
    seen = []
    handle = session.start_login(["profile"], open_browser=False, on_event=seen.append)
    url = url_of(handle)
    http_get(redirect_with(url, code="CODE-1", state=handle.request.state))
    assert handle.wait(30)
    events = handle.poll()
    assert kinds(events) == [
        "authorization_url",
        "waiting",
        "received",
        "scopes_differ",  # the fake service grants "profile tag" for "profile"
        "done",
    ]
    assert events[0].url == url and events[1].remaining == 300 and events[1].accepts_paste
    assert events[-1].username == "alice" and {e.kind for e in events} <= set(KINDS)
    assert kinds(seen) == kinds(events)  # on_event saw the same steps
    assert handle.result().access_token == "access-1"


def test_cancel_ends_the_login_and_keeps_the_stored_tokens(mb_profile, memory_store, server):  # noqa: F811
    session = Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=NoReadingUI())
    before = make_tokens(username="bob")
    memory_store.save(session.key, before)
    handle = session.start_login(["profile"], open_browser=False)
    url = url_of(handle)
    handle.cancel()
    assert handle.wait(30)
    failed = handle.poll()[-1]
    assert failed.kind == "failed" and "cancelled" in failed.reason
    assert isinstance(failed.error, _errors.LoginCancelled)
    with pytest.raises(_errors.LoginCancelled):
        handle.result()
    assert memory_store.load(session.key) == before and server["token"] == []
    # the listener is gone: a late redirect finds nobody
    with pytest.raises(OSError):
        http_get(redirect_with(url, code="LATE", state=handle.request.state))


def test_a_mistyped_paste_is_rejected_and_the_login_goes_on(mb_profile, memory_store, server):  # noqa: F811
    session = Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=NoReadingUI())
    handle = session.start_login(["profile"], method="oob", open_browser=False)
    url_of(handle)
    handle.submit("BAD")  # the fake service answers invalid_grant to this code
    wait_for(lambda: any(e.kind == "input_rejected" for e in list(handle.events.queue)))
    handle.submit("GOOD-CODE")
    assert handle.wait(30)
    assert kinds(handle.poll())[-3:] == ["received", "scopes_differ", "done"]
    assert [form["code"] for form in server["token"]] == ["BAD", "GOOD-CODE"]


def test_a_failure_is_an_event_with_a_reason(mb_profile, memory_store, server) -> None:  # noqa: F811
    session = Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=NoReadingUI())
    handle = session.start_login(["profile"], open_browser=False)
    http_get(redirect_with(url_of(handle), error="access_denied", state=handle.request.state))
    assert handle.wait(30)
    last = handle.poll()[-1]
    assert last.kind == "failed" and isinstance(last.error, _errors.AccessDenied)
    assert "not granted" in last.reason


def test_alogin_against_the_bundled_server(ref_server, tmp_path) -> None:
    session = new_session(ref_server, tmp_path, ui=NoReadingUI())
    events = []

    def on_event(event) -> None:
        events.append(event)
        if event.kind == "authorization_url":  # the 'browser', off the event loop
            threading.Thread(target=browse, args=(event.url,), daemon=True).start()

    def browse(url: str) -> None:
        http_get(driver(ref_server).authorize(url))

    async def main():
        ticker = asyncio.create_task(asyncio.sleep(3600))  # the loop stays free meanwhile
        try:
            return await session.alogin(["profile"], open_browser=False, on_event=on_event)
        finally:
            ticker.cancel()

    tokens = asyncio.run(main())
    assert tokens.username == "alice" and kinds(events)[-1] == "done"


def test_cancelling_the_alogin_task_cancels_the_login(mb_profile, memory_store, server):  # noqa: F811
    session = Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=NoReadingUI())
    memory_store.save(session.key, before := make_tokens())

    async def main() -> None:
        started = asyncio.Event()
        task = asyncio.create_task(
            session.alogin(["profile"], open_browser=False, on_event=lambda e: started.set())
        )
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert memory_store.load(session.key) == before and server["token"] == []


#: logins cancelled and started again at once on one registered port
RETRIES = 30


def test_a_login_started_again_at_once_after_a_cancelled_alogin_finds_its_port_free(
    mb_profile, memory_store
) -> None:
    """One registered port (metabrainz.org's rule): cancel, start again at once, 30 times.
    Each cancelled alogin reported a `failed` event ("login cancelled") before it returned,
    on the loop's thread."""
    session = Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=NoReadingUI())
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def cancel_one(loop_thread: int) -> tuple[str, tuple[str, str | None, bool] | None]:
        events: list[tuple[str, str | None, bool]] = []
        waiting = asyncio.Event()

        def on_event(event) -> None:
            events.append((event.kind, event.reason, threading.get_ident() == loop_thread))
            if event.kind == "waiting":
                waiting.set()

        task = asyncio.create_task(
            session.alogin(
                ["profile"], ports=(port,), open_browser=False, check=False, on_event=on_event
            )
        )
        waiter = asyncio.create_task(waiting.wait())
        await asyncio.wait([task, waiter], timeout=GUARD, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        if task.done():
            return type(task.exception()).__name__, None
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return "cancelled", events[-1]

    async def main() -> list[tuple[str, tuple[str, str | None, bool] | None]]:
        loop_thread = threading.get_ident()
        return [await cancel_one(loop_thread) for _ in range(RETRIES)]

    outcomes = asyncio.run(main())
    assert [outcome for outcome, _ in outcomes] == ["cancelled"] * RETRIES
    assert [last for _, last in outcomes] == [("failed", "login cancelled", True)] * RETRIES


def test_a_blocking_login_never_reads_a_gui_in_a_thread_of_its_own(
    mb_profile,
    memory_store,
    server,  # noqa: F811
) -> None:
    def browser(url: str) -> None:
        http_get(redirect_with(url, code="CODE-1", state=query(url)["state"]))

    ui = NoReadingUI(browser=None)
    session = Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=ui)
    events = []

    def on_event(event) -> None:
        events.append(event)
        if event.kind == "authorization_url":  # no browser: the app shows the URL itself
            threading.Thread(target=browser, args=(event.url,), daemon=True).start()

    tokens = session.login(["profile"], open_browser=False, on_event=on_event, timeout=30)
    assert tokens.access_token == "access-1"
    waiting = next(e for e in events if e.kind == "waiting")
    assert waiting.accepts_paste is False  # nobody reads pasted input behind the app's back
