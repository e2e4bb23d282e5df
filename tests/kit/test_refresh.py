"""The refresh engine and httpx.Auth: when to refresh, one at a time, saved before use."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import threading
import time
from urllib.parse import parse_qs

import httpx
import pytest

from client_kit import _errors
from client_kit._cli_exit import exit_code
from client_kit._session import Session
from client_kit._storage import FileStore, MemoryStore, StoreKey
from tests.kit import procs
from tests.kit.helpers import BASE, CLIENT_ID, CLIENT_SECRET, make_tokens, token_json

API = f"{BASE}/ws/2/tag"


def form(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(request.content.decode()).items()}


@pytest.fixture
def refreshes(mock):
    """Token endpoint that issues access-N for the Nth refresh (and keeps the refresh token)."""
    calls: list[dict[str, str]] = []

    def token(request: httpx.Request) -> httpx.Response:
        calls.append(form(request))
        time.sleep(0.05)  # widen the window in which an unlocked refresh would overlap
        return httpx.Response(200, json=token_json(f"access-{len(calls)}"))

    mock.post("/oauth2/token").mock(side_effect=token)
    return calls


def stored(session: Session):
    return session.store.load(session.key)


def test_valid_token_needs_no_request(session, refreshes) -> None:
    session.store.save(session.key, make_tokens())
    assert session.access_token() == "access-token-old"
    assert refreshes == []


def test_refresh_shortly_before_expiry(session, refreshes) -> None:
    session.store.save(session.key, make_tokens(expires_in=30))  # inside the margin
    assert session.access_token() == "access-1"
    assert refreshes[0] == {
        "grant_type": "refresh_token",
        "refresh_token": "refresh-token-old",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
    }
    new = stored(session)
    assert new.access_token == "access-1" and new.refresh_token == "refresh-token-old"
    assert not new.is_expired()


def test_not_logged_in(session, refreshes) -> None:
    with pytest.raises(_errors.NotLoggedIn, match="not logged in"):
        session.access_token()


def test_expired_without_refresh_token_needs_login(session, refreshes) -> None:
    session.store.save(session.key, make_tokens(refresh=None, expires_in=-5))
    with pytest.raises(_errors.LoginRequired, match="no refresh token"):
        session.access_token()
    assert refreshes == []


@pytest.mark.parametrize(
    ("status", "body", "cls", "code"),
    [
        (401, {"error": "invalid_client"}, _errors.ClientRejected, 4),
        (401, None, _errors.ClientRejected, 4),
        (500, None, _errors.TemporaryFailure, 5),
        (503, {"error": "temporarily_unavailable"}, _errors.TemporaryFailure, 5),
        (400, {"error": "unsupported_grant_type"}, _errors.ProtocolError, 1),
    ],
)
def test_refresh_failures_are_classified_and_tokens_kept(
    session, mock, status, body, cls, code
) -> None:
    old = make_tokens(expires_in=-5)
    session.store.save(session.key, old)
    mock.post("/oauth2/token").respond(status, json=body)
    with pytest.raises(cls) as info:
        session.access_token()
    assert exit_code(info.value) == code
    assert stored(session) == old


def test_network_failure_is_temporary_and_tokens_kept(session, mock) -> None:
    old = make_tokens(expires_in=-5)
    session.store.save(session.key, old)
    mock.post("/oauth2/token").mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(_errors.TemporaryFailure, match="try again"):
        session.access_token()
    assert stored(session) == old


def test_rotating_refresh_token_is_saved_before_the_access_token_is_used(
    meta_profile, memory_store, mock
) -> None:
    session = Session(meta_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store)
    memory_store.save(session.key, make_tokens("meba_old", "mebr_old", expires_in=-1))
    mock.post("/oauth2/token").respond(200, json=token_json("meba_new", "mebr_new"))
    seen = []

    def api(request: httpx.Request) -> httpx.Response:
        at_use = memory_store.load(session.key)
        seen.append((request.headers["Authorization"], at_use.refresh_token, at_use.access_token))
        return httpx.Response(200, json={})

    mock.get("/ws/2/tag").mock(side_effect=api)
    with httpx.Client(auth=session.auth()) as http:
        assert http.get(API).status_code == 200
    assert seen == [("Bearer meba_new", "mebr_new", "meba_new")]


def test_failed_save_keeps_old_tokens_and_new_ones_are_not_used(session, mock) -> None:
    class FlakyStore(MemoryStore):
        fail = True

        def save(self, key, tokens):
            if self.fail and tokens.access_token != "access-token-old":
                raise _errors.StorageError("keyring locked")
            super().save(key, tokens)

    store = FlakyStore()
    s = Session(session.profile, CLIENT_ID, CLIENT_SECRET, store=store)
    old = make_tokens(expires_in=-5)
    store.save(s.key, old)
    token_route = mock.post("/oauth2/token").respond(
        200, json=token_json("access-new", "refresh-new")
    )
    api = mock.get("/ws/2/tag").respond(200)
    with httpx.Client(auth=s.auth()) as http, pytest.raises(_errors.StorageError):
        http.get(API)
    assert store.load(s.key) == old
    assert api.call_count == 0
    # once the store works again, the refreshed set is saved without a second refresh
    store.fail = False
    assert s.access_token() == "access-new"
    assert store.load(s.key).refresh_token == "refresh-new"
    assert token_route.call_count == 1


def test_401_refreshes_once_and_retries(session, refreshes, mock) -> None:
    session.store.save(session.key, make_tokens())
    auths = []

    def api(request: httpx.Request) -> httpx.Response:
        auths.append(request.headers["Authorization"])
        return httpx.Response(401 if len(auths) == 1 else 200)

    mock.get("/ws/2/tag").mock(side_effect=api)
    with httpx.Client(auth=session.auth()) as http:
        assert http.get(API).status_code == 200
    assert auths == ["Bearer access-token-old", "Bearer access-1"]
    assert len(refreshes) == 1


def test_persistent_401_is_returned_after_one_refresh(session, refreshes, mock) -> None:
    session.store.save(session.key, make_tokens())
    route = mock.get("/ws/2/tag").respond(401)
    with httpx.Client(auth=session.auth()) as http:
        assert http.get(API).status_code == 401
    assert route.call_count == 2 and len(refreshes) == 1


def test_401_after_another_process_refreshed_uses_its_tokens(session, refreshes, mock) -> None:
    session.store.save(session.key, make_tokens())
    assert session.access_token() == "access-token-old"  # cached in this engine
    session.store.save(session.key, make_tokens("access-from-elsewhere"))
    auths = []

    def api(request: httpx.Request) -> httpx.Response:
        auths.append(request.headers["Authorization"])
        ok = request.headers["Authorization"] == "Bearer access-from-elsewhere"
        return httpx.Response(200 if ok else 401)

    mock.get("/ws/2/tag").mock(side_effect=api)
    with httpx.Client(auth=session.auth()) as http:
        assert http.get(API).status_code == 200
    assert auths == ["Bearer access-token-old", "Bearer access-from-elsewhere"]
    assert refreshes == []


def test_async_client_with_refresh_and_401(session, refreshes, mock) -> None:
    session.store.save(session.key, make_tokens(expires_in=-1))
    auths = []

    def api(request: httpx.Request) -> httpx.Response:
        auths.append(request.headers["Authorization"])
        return httpx.Response(401 if len(auths) == 1 else 200)

    mock.get("/ws/2/tag").mock(side_effect=api)

    async def run() -> int:
        async with httpx.AsyncClient(auth=session.auth()) as http:
            return (await http.get(API)).status_code

    assert asyncio.run(run()) == 200
    assert auths == ["Bearer access-1", "Bearer access-2"]
    assert len(refreshes) == 2


def test_concurrent_threads_refresh_once(mb_profile, memory_store, refreshes) -> None:
    sessions = [Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store) for _ in range(8)]
    memory_store.save(sessions[0].key, make_tokens(expires_in=-1))
    barrier = threading.Barrier(len(sessions))
    results: list[str] = []

    def work(s: Session) -> None:
        barrier.wait()
        results.append(s.access_token())

    threads = [threading.Thread(target=work, args=(s,)) for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(refreshes) == 1
    assert results == ["access-1"] * 8


def test_concurrent_asyncio_tasks_refresh_once(session, refreshes) -> None:
    session.store.save(session.key, make_tokens(expires_in=-1))

    async def run() -> list[str]:
        return await asyncio.gather(*(session.aaccess_token() for _ in range(10)))

    assert asyncio.run(run()) == ["access-1"] * 10
    assert len(refreshes) == 1


def test_concurrent_processes_refresh_once(tmp_path) -> None:
    store_dir = tmp_path / "store"
    store = FileStore(store_dir)
    key = StoreKey("https://mb.test", "cid")
    store.save(key, make_tokens("meba_old", "mebr_old", expires_in=-1))
    counter = tmp_path / "refresh-requests.log"
    ctx = multiprocessing.get_context("spawn")
    n = 4
    barrier = ctx.Barrier(n)
    outs = [tmp_path / f"out-{i}.json" for i in range(n)]
    children = [
        ctx.Process(
            target=procs.refresh_in_child, args=(str(store_dir), str(counter), str(out), barrier)
        )
        for out in outs
    ]
    for child in children:
        child.start()
    for child in children:
        child.join(60)
        assert child.exitcode == 0
    lines = counter.read_text().splitlines()
    assert len(lines) == 1, lines
    assert "refresh_token=mebr_old" in lines[0]
    results = [json.loads(out.read_text()) for out in outs]
    assert len({r["access"] for r in results}) == 1
    final = store.load(key)
    assert final.refresh_token == results[0]["refresh"] != "mebr_old"


def test_post_body_is_sent_again_after_refresh(session, refreshes, mock) -> None:
    session.store.save(session.key, make_tokens())
    bodies = []

    def api(request: httpx.Request) -> httpx.Response:
        bodies.append((request.headers["Authorization"], request.content))
        return httpx.Response(401 if len(bodies) == 1 else 200)

    mock.post("/ws/2/tag").mock(side_effect=api)

    def stream():
        yield b"<metadata/>"

    with httpx.Client(auth=session.auth()) as http:
        assert http.post(API, content=stream()).status_code == 200
    assert bodies == [
        ("Bearer access-token-old", b"<metadata/>"),
        ("Bearer access-1", b"<metadata/>"),
    ]
