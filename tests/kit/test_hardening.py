"""Hardening of the kit (issue 5, item 6).

The loopback listener refuses a second callback and anything not from loopback; ``--no-browser``
and ``--oob`` work with no display; an interrupted login leaves the stored tokens as they were;
a full login, refresh and logout at DEBUG writes no secret anywhere; a keyring that fails or
hangs is reported within a few seconds.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import signal
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import parse_qs

import httpx
import pytest
from click.testing import CliRunner
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from client_kit import errors
from client_kit.cli import cli
from client_kit.loopback import LoopbackListener
from client_kit.session import Session
from client_kit.storage import (
    KEYRING_CHUNK_CHARS,
    FileStore,
    KeyringStore,
    KeyringTimeout,
    MemoryStore,
    StoreKey,
)
from client_kit.tokens import TokenSet
from tests.kit.cli_process import LoginProcess, cli_env, run_cli
from tests.kit.conftest import PASSWORD
from tests.kit.formdriver import FormDriver, oob_code
from tests.kit.helpers import (
    BASE,
    CLIENT_ID,
    CLIENT_SECRET,
    FAKE_KEYRING_ENV,
    BrokenKeyring,
    FakeUI,
    LockedKeyring,
    SleepyKeyring,
    http_get,
    make_tokens,
    query,
    redirect_with,
    token_json,
    wait_for,
)

#: how long a test waits for something the kit must report within a few seconds; far above
#: every kit timeout used here, so that a hang fails the test instead of blocking the run
GUARD = 30


def in_thread(func, *args):
    """Run ``func`` in a thread, waiting at most GUARD seconds: (finished, result, error)."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["result"] = func(*args)
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(GUARD)
    return not thread.is_alive(), outcome.get("result"), outcome.get("error")


# == 1. the loopback listener =============================================================


@pytest.fixture
def listener():
    with LoopbackListener("/callback", app_name="Test App") as lst:
        lst.expected_state = "good-state"
        yield lst


def callback(listener: LoopbackListener, query_string: str) -> tuple[int, str]:
    return http_get(f"http://127.0.0.1:{listener.port}/callback?{query_string}")


def test_after_the_first_valid_callback_every_other_one_is_refused(listener) -> None:
    status, _ = callback(listener, "code=FIRST&state=good-state")
    assert status == 200
    for later in (
        "code=SECOND&state=good-state",  # a replay with another code
        "code=FIRST&state=good-state",  # the same one again
        "error=access_denied&state=good-state",
        "error=access_denied",
        "code=X&state=evil",
    ):
        status, page = callback(listener, later)
        assert status == 410 and "already finished" in page, later
    delivered = listener.results.get(timeout=GUARD)
    assert delivered == ("loopback", {"code": "FIRST", "state": "good-state"})
    assert listener.results.empty()


def test_simultaneous_callbacks_deliver_exactly_one(listener) -> None:
    count = 12
    barrier = threading.Barrier(count)
    statuses: list[int] = []

    def send(index: int) -> None:
        barrier.wait()
        statuses.append(callback(listener, f"code=C{index}&state=good-state")[0])

    threads = [threading.Thread(target=send, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(GUARD)
    assert sorted(statuses) == [200] + [410] * (count - 1)
    listener.results.get(timeout=GUARD)
    assert listener.results.empty()


def test_a_second_callback_during_a_login_is_not_exchanged(mb_profile, memory_store, mock) -> None:
    token = mock.post("/oauth2/token").respond(200, json=token_json("access-1", "refresh-1"))
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice"})
    second: list[object] = []

    def browser(url: str) -> None:
        state = query(url)["state"]
        http_get(redirect_with(url, code="CODE-1", state=state))
        try:  # the listener is either still up (and refuses) or already gone
            second.append(http_get(redirect_with(url, code="CODE-2", state=state)))
        except OSError as exc:
            second.append(exc)

    ui = FakeUI(browser=browser)
    session = Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=ui)
    session.login()
    wait_for(lambda: bool(second), timeout=GUARD)
    assert isinstance(second[0], OSError) or second[0][0] == 410
    assert len(token.calls) == 1
    assert parse_qs(token.calls[0].request.content.decode())["code"] == ["CODE-1"]


def non_loopback_addresses() -> set[str]:
    """This machine's own addresses that are not loopback ones (may be empty)."""
    import ipaddress

    found: set[str] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            found.add(str(info[4][0]))
    except OSError:
        pass
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10)
        found.update(out.stdout.split())
    except (OSError, subprocess.SubprocessError):
        pass
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        try:  # the source address of the default route (UDP connect sends nothing)
            with socket.socket(family, socket.SOCK_DGRAM) as udp:
                udp.connect((probe, 9))
                found.add(udp.getsockname()[0])
        except OSError:
            pass
    result = set()
    for text in found:
        try:
            address = ipaddress.ip_address(text.split("%", 1)[0])
        except ValueError:
            continue
        if not (address.is_loopback or address.is_unspecified or address.is_link_local):
            result.add(text)
    return result


def test_the_listener_cannot_be_reached_from_other_addresses(listener) -> None:
    assert listener._server.socket.getsockname()[0] == "127.0.0.1"
    for address in sorted(non_loopback_addresses()):
        with pytest.raises(OSError):
            socket.create_connection((address, listener.port), timeout=5).close()
    # still reachable from loopback, and nothing was delivered by the attempts
    assert listener.results.empty()
    assert callback(listener, "code=C&state=good-state")[0] == 200


def handler_answer(listener: LoopbackListener, peer: str, target: str) -> bytes:
    """Feed one request to the listener's handler as if it came from ``peer``."""
    ours, theirs = socket.socketpair()
    try:
        theirs.sendall(f"GET {target} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
        listener._server.RequestHandlerClass(ours, (peer, 40000), listener._server)
        ours.close()
        theirs.settimeout(GUARD)
        chunks = []
        while chunk := theirs.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize("peer", ["192.0.2.7", "10.0.0.2", "fd00::2", "::ffff:192.0.2.7", "x"])
def test_the_handler_refuses_a_peer_that_is_not_loopback(listener, peer) -> None:
    answer = handler_answer(listener, peer, "/callback?code=C&state=good-state")
    assert answer.startswith(b"HTTP/1.0 403") and b"Only this computer" in answer
    assert listener.results.empty()
    # the refused request did not end the login: the real callback is still accepted
    assert callback(listener, "code=REAL&state=good-state")[0] == 200


@pytest.mark.parametrize("peer", ["127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"])
def test_the_handler_accepts_loopback_peers(listener, peer) -> None:
    answer = handler_answer(listener, peer, "/callback?code=C&state=good-state")
    assert answer.startswith(b"HTTP/1.0 200")
    assert listener.results.get(timeout=GUARD)[1]["code"] == "C"


class PeekingQueue(queue.Queue):
    """Results queue that records what the browser had received when the callback arrived."""

    def __init__(self, browser_end: socket.socket) -> None:
        super().__init__()
        self.browser_end = browser_end
        self.received_at_delivery: bytes | None = None

    def put(self, item, block=True, timeout=None) -> None:
        self.browser_end.setblocking(False)
        data = b""
        try:
            while chunk := self.browser_end.recv(65536):
                data += chunk
        except BlockingIOError:
            pass
        finally:
            self.browser_end.setblocking(True)
        self.received_at_delivery = data
        super().put(item, block, timeout)


@pytest.mark.parametrize(
    ("query_string", "page"),
    [
        ("code=C&state=good-state", b"Authorization received"),
        ("error=access_denied&state=good-state", b"Login failed"),
    ],
)
def test_the_page_is_complete_before_the_callback_is_delivered(query_string, page) -> None:
    """Once delivered, the login may end and the process exit: the browser has its page."""
    ours, theirs = socket.socketpair()
    results = PeekingQueue(theirs)
    try:
        with LoopbackListener("/callback", results=results) as lst:
            lst.expected_state = "good-state"
            request = f"GET /callback?{query_string} HTTP/1.1\r\nHost: localhost\r\n\r\n"
            theirs.sendall(request.encode())
            lst._server.RequestHandlerClass(ours, ("127.0.0.1", 40000), lst._server)
        assert results.qsize() == 1
        seen = results.received_at_delivery
        assert seen is not None and seen.startswith(b"HTTP/1.0 200")
        assert page in seen and seen.rstrip().endswith(b"</html>")
    finally:
        ours.close()
        theirs.close()


# == 2. --no-browser and --oob without a display (real processes, bundled server) ===========


def headless_env(ref_server, app: dict, tmp_path: Path) -> dict[str, str]:
    env = cli_env(ref_server, app, tmp_path)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER", "SSH_CONNECTION", "MB_OAUTH_NO_BROWSER"):
        env.pop(name, None)
    return env


@pytest.mark.parametrize("mode", ["--no-browser", "--oob", "no flag, no display"])
def test_login_without_a_display(ref_server, tmp_path, mode) -> None:
    oob = mode == "--oob"
    app = ref_server.oob_app if oob else ref_server.loopback_app
    env = headless_env(ref_server, app, tmp_path)
    marker = tmp_path / "browser-was-started"
    args: list[str] = [mode] if mode.startswith("--") else []
    if not args:
        # a browser command that would leave a trace: with no display it must not be run
        script = tmp_path / "fake-browser"
        script.write_text(f"#!/bin/sh\ntouch {marker}\n")
        script.chmod(0o755)
        env["BROWSER"] = str(script)
    login = LoginProcess(env, *args, "--json")
    try:
        url = login.authorization_url()
        answer = FormDriver(ref_server.base_url, ref_server.ca_file, "alice", PASSWORD).authorize(
            url
        )
        # the user pastes what the browser showed: the OOB code, or the redirected URL
        if oob:
            pasted = oob_code(answer)
        else:
            assert isinstance(answer, str) and answer.startswith("http://localhost:")
            pasted = answer
        assert login.process.stdin is not None
        login.process.stdin.write(pasted + "\n")
        login.process.stdin.flush()
        code, stdout, stderr = login.finish()
    finally:
        login.kill()
    assert code == 0, stderr
    assert json.loads(stdout)["username"] == "alice"
    assert "Open this URL in a browser" in stderr and "browser has been opened" not in stderr
    assert not marker.exists()
    stored = list((tmp_path / "store").glob("*.json"))
    assert len(stored) == 1 and TokenSet.from_json(stored[0].read_text()).refresh_token
    who = run_cli(env, "whoami", "--json")
    assert who.returncode == 0, who.stderr
    assert json.loads(who.stdout)["sub"] == "alice"


# == 3. an interrupted login leaves the stored tokens as they were ==========================


class DictKeyring(KeyringBackend):
    """An in-memory keyring; ``gate`` makes the chosen set_password calls hang."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[tuple[str, str], str] = {}
        self.calls: list[str] = []
        self.hang_on: int | None = None  # index of the set_password call that hangs
        self.sets = 0
        self.gate = threading.Event()
        self.hung = threading.Event()
        self.finished_hung_call = threading.Event()
        self.hold_until = None  # an extra condition for the hung call (see the ordering test)

    def get_password(self, service: str, username: str) -> str | None:
        self.calls.append(f"get {username}")
        return self.data.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.calls.append(f"set {username}")
        index = self.sets
        self.sets += 1
        if index == self.hang_on:
            self.hung.set()
            self.gate.wait(GUARD)
            self.data[(service, username)] = password
            self.finished_hung_call.set()
            return
        self.data[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.calls.append(f"delete {username}")
        if (service, username) not in self.data:
            raise PasswordDeleteError("missing")
        del self.data[(service, username)]


class StoreUnderTest:
    """A store holding a valid login, and a byte-level snapshot of what it holds."""

    def __init__(self, kind: str, tmp_path: Path, key: StoreKey) -> None:
        self.kind = kind
        self.key = key
        if kind == "memory":
            self.store: MemoryStore | FileStore | KeyringStore = MemoryStore()
        elif kind == "file":
            self.directory = tmp_path / "store"
            self.store = FileStore(self.directory)
        else:
            self.backend = DictKeyring()
            self.store = KeyringStore(self.backend, timeout=GUARD / 3)
        self.store.save(key, make_tokens("access-kept-123", "refresh-kept-456", username="alice"))

    def snapshot(self) -> object:
        if self.kind == "memory":
            return self.store.load(self.key)
        if self.kind == "file":
            return {
                p.name: (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
                for p in sorted(self.directory.iterdir())
            }
        return dict(self.backend.data)


def interrupting_browser(outcome: str):
    """What the 'user' does with the authorization URL for each kind of interruption."""

    def run(url: str) -> None:
        if outcome == "ctrl-c":
            os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C, delivered to the main thread
        elif outcome == "denied":
            http_get(redirect_with(url, error="access_denied", state=query(url)["state"]))
        # "timeout": the user never comes back

    return run


@pytest.mark.parametrize("kind", ["memory", "file", "keyring"])
@pytest.mark.parametrize(
    ("outcome", "error"),
    [
        ("ctrl-c", errors.LoginCancelled),
        ("timeout", errors.LoginTimeout),
        ("denied", errors.AccessDenied),
    ],
)
def test_interrupted_login_keeps_the_stored_tokens(
    mb_profile, mock, tmp_path, kind, outcome, error
) -> None:
    token = mock.post("/oauth2/token").respond(200, json=token_json("access-new", "refresh-new"))
    key = StoreKey(mb_profile.base_url, CLIENT_ID)
    held = StoreUnderTest(kind, tmp_path, key)
    before = held.snapshot()
    session = Session(
        mb_profile,
        CLIENT_ID,
        CLIENT_SECRET,
        store=held.store,
        ui=FakeUI(browser=interrupting_browser(outcome)),
    )
    with pytest.raises(error) as info:
        session.login(timeout=0.5 if outcome == "timeout" else GUARD)
    assert info.value.exit_code == errors.EXIT_CANCELLED
    assert not token.calls
    assert held.snapshot() == before
    assert session.tokens() == held.store.load(key)
    assert session.tokens().access_token == "access-kept-123"


@pytest.fixture
def stored_cli_login(ref_server, tmp_path):
    """A real ``mb-oauth`` environment whose file store already holds a valid login."""
    env = headless_env(ref_server, ref_server.loopback_app, tmp_path)
    key = StoreKey(ref_server.profile().base_url, ref_server.loopback_app["client_id"])
    FileStore(tmp_path / "store").save(
        key, make_tokens("access-kept-123", "refresh-kept-456", username="alice")
    )
    return env, tmp_path / "store"


def file_bytes(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


@pytest.mark.parametrize("outcome", ["ctrl-c", "timeout", "denied"])
def test_interrupted_cli_login_exit_6_keeps_the_stored_tokens(
    ref_server, stored_cli_login, outcome
) -> None:
    env, directory = stored_cli_login
    before = file_bytes(directory)
    args = ["--no-browser"] + (["--timeout", "1"] if outcome == "timeout" else [])
    login = LoginProcess(env, *args)
    try:
        url = login.authorization_url()
        if outcome == "ctrl-c":
            login.process.send_signal(signal.SIGINT)
        elif outcome == "denied":
            target = FormDriver(
                ref_server.base_url, ref_server.ca_file, "alice", PASSWORD
            ).authorize(url, decision="deny")
            assert isinstance(target, str) and "error=access_denied" in target
            assert http_get(target)[0] == 200
        code, stdout, stderr = login.finish()
    finally:
        login.kill()
    assert code == 6, stderr
    words = {"ctrl-c": "interrupted", "timeout": "seconds", "denied": "not granted"}[outcome]
    assert words in stderr.lower() and stdout == "", stderr
    assert file_bytes(directory) == before
    status = run_cli(env, "status", "--json")
    assert status.returncode == 0 and json.loads(status.stdout)["username"] == "alice"


def test_interrupted_login_through_click_keeps_the_file(tmp_path, monkeypatch, mock) -> None:
    """The in-process CLI: Ctrl-C while waiting for the browser (exit 6), nothing written."""
    import client_kit.session as session_module

    for name, value in {
        "MB_OAUTH_SERVICE": BASE,
        "MB_OAUTH_CLIENT_ID": CLIENT_ID,
        "MB_OAUTH_CLIENT_SECRET": CLIENT_SECRET,
        "MB_OAUTH_STORE": f"file:{tmp_path / 'store'}",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }.items():
        monkeypatch.setenv(name, value)
    FileStore(tmp_path / "store").save(StoreKey(BASE, CLIENT_ID), make_tokens())
    before = file_bytes(tmp_path / "store")

    def interrupted(results, timeout, **_):
        raise KeyboardInterrupt

    monkeypatch.setattr(session_module, "_wait", interrupted)
    result = CliRunner().invoke(cli, ["login", "--no-browser"], prog_name="mb-oauth")
    assert result.exit_code == 6 and "interrupted" in result.stderr
    assert file_bytes(tmp_path / "store") == before


# == 4. login, refresh and logout with every logger at DEBUG: no secret anywhere ============


@pytest.fixture
def every_logger_at_debug(all_logs):
    manager = logging.Logger.manager
    saved = {
        name: logger.level
        for name, logger in manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    for name in saved:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield all_logs
    finally:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


def test_full_session_at_debug_leaks_nothing(
    ref_server, tmp_path, every_logger_at_debug, capfd, monkeypatch
) -> None:
    import client_kit.session as session_module

    verifiers: list[str] = []
    real_build = session_module.build_request

    def recording_build(*args, **kwargs):
        request = real_build(*args, **kwargs)
        verifiers.append(request.code_verifier)
        return request

    monkeypatch.setattr(session_module, "build_request", recording_build)
    codes: list[str] = []

    def browser(url: str) -> None:
        target = FormDriver(ref_server.base_url, ref_server.ca_file, "alice", PASSWORD).authorize(
            url
        )
        codes.append(query(target)["code"])
        http_get(target)

    app = ref_server.loopback_app
    ui = FakeUI(browser=browser)
    session = Session(
        ref_server.profile(),
        app["client_id"],
        app["client_secret"],
        store=FileStore(tmp_path / "tokens"),
        ui=ui,
    )
    first = session.login(["profile", "email"])
    second = session.refresh()
    with httpx.Client(auth=session.auth(), verify=session.profile.ssl_context()) as http:
        assert http.get(session.profile.userinfo_url).status_code == 200
    session.logout()
    session.close()

    secrets = {
        "client secret": app["client_secret"],
        "password": PASSWORD,
        **{f"code {i}": code for i, code in enumerate(codes)},
        **{f"verifier {i}": v for i, v in enumerate(verifiers)},
        "first access token": first.access_token,
        "first refresh token": first.refresh_token,
        "second access token": second.access_token,
        "second refresh token": second.refresh_token,
    }
    assert codes and verifiers and all(v and len(v) >= 8 for v in secrets.values())
    out, err = capfd.readouterr()
    logs = "\n".join(every_logger_at_debug.lines)
    assert "HTTP Request: POST" in logs and "httpcore" in logs  # DEBUG logging did happen
    everything = {"logs": logs, "stdout": out, "stderr": err, "shown": "\n".join(ui.shown)}
    for where, text in everything.items():
        for what, value in secrets.items():
            assert value not in text, f"{what} in {where}"


#: mb-oauth, recording the PKCE verifiers it makes (so that the test can look for them)
RECORDING_CLI = [
    sys.executable,
    "-c",
    "import os, client_kit.session as s\n"
    "real = s.build_request\n"
    "def build(*a, **k):\n"
    "    r = real(*a, **k)\n"
    "    with open(os.environ['KIT_TEST_VERIFIERS'], 'a') as f: f.write(r.code_verifier + '\\n')\n"
    "    return r\n"
    "s.build_request = build\n"
    "from client_kit.cli import main; main()\n",
]


def test_cli_session_with_debug_leaks_nothing(ref_server, tmp_path) -> None:
    app = ref_server.loopback_app
    env = headless_env(ref_server, app, tmp_path)
    env["KIT_TEST_VERIFIERS"] = str(tmp_path / "verifiers")
    key = StoreKey(ref_server.profile().base_url, app["client_id"])
    store = FileStore(tmp_path / "store")
    outputs: list[str] = []

    login = LoginProcess(env, "--no-browser", cli=[*RECORDING_CLI, "--debug"])
    try:
        url = login.authorization_url()
        target = FormDriver(ref_server.base_url, ref_server.ca_file, "alice", PASSWORD).authorize(
            url
        )
        code_value = query(target)["code"]
        assert http_get(target)[0] == 200  # the listener gets the code, as from a browser
        code, stdout, stderr = login.finish()
    finally:
        login.kill()
    assert code == 0, stderr
    outputs += [stdout, stderr]
    first = store.load(key)
    for command in (["refresh"], ["whoami"], ["status", "--json"]):
        result = run_cli(env, "--debug", *command)
        assert result.returncode == 0, result.stderr
        outputs += [result.stdout, result.stderr]
    second = store.load(key)
    result = run_cli(env, "--debug", "logout")
    assert result.returncode == 0 and "Logged out" in result.stderr
    outputs += [result.stdout, result.stderr]
    assert store.load(key) is None

    verifiers = (tmp_path / "verifiers").read_text().split()
    secrets = {
        "client secret": app["client_secret"],
        "password": PASSWORD,
        "code": code_value,
        "verifier": verifiers[0],
        "first access token": first.access_token,
        "first refresh token": first.refresh_token,
        "second access token": second.access_token,
        "second refresh token": second.refresh_token,
    }
    assert len(verifiers) == 1 and first.access_token != second.access_token
    text = "\n".join(outputs)
    assert "HTTP Request: POST" in text and "httpcore" in text  # --debug did log
    for what, value in secrets.items():
        assert value and value not in text, what


# == 5. a keyring that fails or hangs ======================================================


@pytest.fixture
def sleepy():
    SleepyKeyring.release.clear()
    yield SleepyKeyring()
    SleepyKeyring.release.set()  # let the abandoned worker threads finish


KEY = StoreKey(BASE, CLIENT_ID)
OPERATIONS = {
    "load": lambda store: store.load(KEY),
    "save": lambda store: store.save(KEY, make_tokens()),
    "delete": lambda store: store.delete(KEY),
}


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_hanging_keyring_is_reported_not_waited_on(sleepy, operation) -> None:
    store = KeyringStore(sleepy, timeout=0.5)
    finished, _, error = in_thread(OPERATIONS[operation], store)
    assert finished, "the kit waited on a hung keyring"
    assert isinstance(error, KeyringTimeout) and isinstance(error, errors.StorageError)
    message = str(error)
    assert "did not answer within 0.5 s" in message
    assert "Unlock the keyring" in message and "--store file" in message
    assert "MB_OAUTH_KEYRING_TIMEOUT" in message
    assert error.exit_code == errors.EXIT_STORAGE


def test_keyring_timeout_defaults_and_comes_from_the_environment(sleepy, monkeypatch) -> None:
    monkeypatch.delenv("MB_OAUTH_KEYRING_TIMEOUT", raising=False)
    assert KeyringStore(sleepy).timeout == 5
    assert KeyringStore(sleepy, timeout=2.5).timeout == 2.5
    monkeypatch.setenv("MB_OAUTH_KEYRING_TIMEOUT", "0.4")
    store = KeyringStore(sleepy)
    assert store.timeout == 0.4
    finished, _, error = in_thread(store.load, KEY)
    assert finished and isinstance(error, KeyringTimeout) and "within 0.4 s" in str(error)
    for bad in ("soon", "0", "-3", "inf", "nan"):
        monkeypatch.setenv("MB_OAUTH_KEYRING_TIMEOUT", bad)
        with pytest.raises(errors.ConfigurationError, match="MB_OAUTH_KEYRING_TIMEOUT"):
            KeyringStore(sleepy)


@pytest.mark.parametrize(
    ("backend", "name"), [(LockedKeyring(), "KeyringLocked"), (BrokenKeyring(), "RuntimeError")]
)
@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_failing_keyring_is_a_clear_storage_error(backend, name, operation) -> None:
    store = KeyringStore(backend, timeout=GUARD / 3)
    finished, _, error = in_thread(OPERATIONS[operation], store)
    assert finished
    assert isinstance(error, errors.StorageError) and not isinstance(error, KeyringTimeout)
    message = str(error)
    assert name in message and "unlock the keyring" in message and "--store file" in message
    assert error.exit_code == errors.EXIT_STORAGE


def big_tokens(tag: str, n: int = 2500) -> TokenSet:
    """A large token set, as it reads back from a store (JSON rounds the times)."""
    tokens = make_tokens(f"meba_{tag}_" + "a" * n, f"mebr_{tag}_" + "b" * n)
    return TokenSet.from_json(tokens.to_json())


def set_calls(tokens: TokenSet) -> int:
    """How many set_password calls a save of ``tokens`` makes (chunks + pointer)."""
    length = len(tokens.to_json())
    return 1 if length <= KEYRING_CHUNK_CHARS else -(-length // KEYRING_CHUNK_CHARS) + 1


@pytest.mark.parametrize("where", ["first chunk", "middle chunk", "last chunk", "pointer"])
def test_a_save_that_hangs_never_loses_or_corrupts_the_stored_tokens(where) -> None:
    backend = DictKeyring()
    store = KeyringStore(backend, timeout=0.5)
    before = big_tokens("old", 1500)
    store.save(KEY, before)
    new = big_tokens("new")
    calls = set_calls(new)
    assert calls >= 4
    index = {"first chunk": 0, "middle chunk": 2, "last chunk": calls - 2, "pointer": calls - 1}
    backend.sets = 0
    backend.hang_on = index[where]

    finished, _, error = in_thread(store.save, KEY, new)
    assert finished and isinstance(error, KeyringTimeout) and "save" in str(error)
    # while the keyring hangs, a load is reported too (it queues behind the hung call)
    finished, _, error = in_thread(store.load, KEY)
    assert finished and isinstance(error, KeyringTimeout)
    calls_when_abandoned = list(backend.calls)

    backend.gate.set()  # the hung call completes after its caller gave up
    assert backend.finished_hung_call.wait(GUARD)
    # the abandoned save issued nothing more, and the abandoned load never ran
    wait_for(lambda: store._worker._thread is None)
    assert backend.calls == calls_when_abandoned
    # what is stored is one whole token set: the old one, or the new one if the pointer moved
    assert store.load(KEY) == (new if where == "pointer" else before)
    # and the keyring works again for the next save
    latest = big_tokens("latest")
    store.save(KEY, latest)
    assert store.load(KEY) == latest


def test_a_write_finishing_late_never_lands_after_a_newer_one() -> None:
    backend = DictKeyring()
    store = KeyringStore(backend, timeout=0.5)
    store.save(KEY, make_tokens("access-0", "refresh-0"))
    backend.sets = 0
    backend.hang_on = 0
    finished, _, error = in_thread(store.save, KEY, make_tokens("access-stale", "refresh-stale"))
    assert finished and isinstance(error, KeyringTimeout)

    # the stale write is released only once a newer write reaches the backend, or after a
    # while: calls in order means the newer one cannot start before the stale one ends
    newer_started = threading.Event()
    real_set = backend.set_password

    def set_password(service: str, username: str, password: str) -> None:
        if "access-newer" in password:
            newer_started.set()
        real_set(service, username, password)

    backend.set_password = set_password  # type: ignore[method-assign]
    threading.Thread(
        target=lambda: (newer_started.wait(3), backend.gate.set()), daemon=True
    ).start()
    store.timeout = GUARD / 3
    store.save(KEY, make_tokens("access-newer", "refresh-newer"))
    assert backend.finished_hung_call.is_set()
    assert store.load(KEY).access_token == "access-newer"


def keyring_cli_env(tmp_path: Path, backend: str, timeout: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MB_OAUTH_")}
    env.update(
        MB_OAUTH_SERVICE=BASE,
        MB_OAUTH_CLIENT_ID=CLIENT_ID,
        MB_OAUTH_STORE="keyring",
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        PYTHON_KEYRING_BACKEND=f"tests.kit.helpers.{backend}",
        PYTHONPATH=str(Path(__file__).resolve().parents[2]),
        **{FAKE_KEYRING_ENV: "1"},
    )
    if timeout is not None:
        env["MB_OAUTH_KEYRING_TIMEOUT"] = timeout
    return env


@pytest.mark.parametrize(
    ("command", "timeout", "shown"),
    [
        ("status", "1", "1 s"),
        ("token", "1", "1 s"),
        ("logout", "1", "1 s"),
        ("status", None, "5 s"),
    ],
)
def test_cli_hanging_keyring_exit_7(tmp_path, command, timeout, shown) -> None:
    # SleepyKeyring hangs 60 s; run_cli gives up at 60 s: only the kit's timeout passes
    result = run_cli(keyring_cli_env(tmp_path, "SleepyKeyring", timeout), command)
    assert result.returncode == 7, result.stderr
    assert f"the keyring did not answer within {shown}" in result.stderr
    assert "--store file" in result.stderr and "Unlock the keyring" in result.stderr
    assert "Traceback" not in result.stderr


def test_help_documents_the_keyring_timeout() -> None:
    result = CliRunner().invoke(cli, ["--help"], prog_name="mb-oauth")
    assert result.exit_code == 0
    assert "MB_OAUTH_KEYRING_TIMEOUT" in " ".join(result.output.split())


@pytest.mark.parametrize(("backend", "name"), [("LockedKeyring", "KeyringLocked")])
@pytest.mark.parametrize("command", ["status", "token", "logout"])
def test_cli_failing_keyring_exit_7(tmp_path, backend, name, command) -> None:
    result = run_cli(keyring_cli_env(tmp_path, backend, "5"), command)
    assert result.returncode == 7, result.stderr
    assert name in result.stderr and "--store file" in result.stderr
    assert "Traceback" not in result.stderr
