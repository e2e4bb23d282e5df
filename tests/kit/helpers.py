"""Shared helpers of the kit's tests (no fixtures here: see conftest.py)."""

from __future__ import annotations

import queue
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from client_kit._tokens import TokenSet

if TYPE_CHECKING:
    from client_kit._loopback import LoopbackListener

BASE = "https://mb.test"
TOKEN_URL = f"{BASE}/oauth2/token"
REVOKE_URL = f"{BASE}/oauth2/revoke"
USERINFO_URL = f"{BASE}/oauth2/userinfo"
CLIENT_ID = "client-id-123"
CLIENT_SECRET = "client-secret-very-secret-456"


def make_tokens(
    access: str = "access-token-old",
    refresh: str | None = "refresh-token-old",
    expires_in: float = 3600,
    scopes: tuple[str, ...] = ("profile",),
    username: str | None = None,
) -> TokenSet:
    now = time.time()
    return TokenSet(access, refresh, now + expires_in, scopes, obtained_at=now, username=username)


def token_json(access: str, refresh: str | None = None, **extra: object) -> dict[str, object]:
    data: dict[str, object] = {
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": 3600,
        **extra,
    }
    if refresh:
        data["refresh_token"] = refresh
    return data


def query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def follow_launcher(url: str) -> str:
    """Where the loopback listener's launcher sends the browser (other URLs: themselves)."""
    import http.client

    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.path.startswith("/open/"):
        return url
    connection = http.client.HTTPConnection(parts.netloc, timeout=10)
    try:
        connection.request("GET", parts.path)
        response = connection.getresponse()
        location = response.getheader("Location")
    finally:
        connection.close()
    assert response.status == 303 and location, (response.status, location)
    return location


def http_get(url: str) -> tuple[int, str]:
    """A plain GET to the loopback listener (urllib: not intercepted by respx)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


class FakeUI:
    """Scripted user: a 'browser' callback, lines to paste, everything shown recorded."""

    concurrent_read = True  # like the console: pasted lines may be read in a kit thread

    def __init__(
        self,
        browser: Callable[[str], None] | None = None,
        lines: list[str] | None = None,
        block_reading: bool = False,
    ) -> None:
        self.browser = browser
        self.lines = list(lines or [])
        self.shown: list[str] = []
        self.prompts: list[str] = []
        self.opened: list[str] = []
        self.launched: list[str] = []
        self.block_reading = block_reading
        self._never = threading.Event()

    def show(self, message: str) -> None:
        self.shown.append(message)

    def open_browser(self, url: str) -> bool:
        """Like a browser: a loopback launcher is followed to the page it forwards to,
        which the scripted ``browser`` then gets (``opened``: those pages)."""
        if self.browser is None:
            return False
        self.launched.append(url)
        url = follow_launcher(url)
        self.opened.append(url)
        threading.Thread(target=self.browser, args=(url,), daemon=True).start()
        return True

    def read_line(self, prompt: str) -> str | None:
        self.prompts.append(prompt)
        if self.lines:
            return self.lines.pop(0)
        if self.block_reading:
            self._never.wait(30)
        return None


def redirect_with(url: str, **params: str) -> str:
    """Where the service would send the browser: redirect_uri + params."""
    from urllib.parse import urlencode

    q = query(url)
    return f"{q['redirect_uri']}?{urlencode(params)}"


def wait_for(predicate: Callable[[], bool], timeout: float = 10) -> None:
    """Poll until true (for ordering only, never to assert timing)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.01)


# -- keyring backends that hang or fail: importable by name for PYTHON_KEYRING_BACKEND, so
# that a real ``mb-oauth`` process can load them too. keyring registers every backend class
# it sees; these are viable only when FAKE_KEYRING_ENV is set, so that keyring's own
# discovery never picks them in the test process.

FAKE_KEYRING_ENV = "KIT_TEST_FAKE_KEYRING"


def _keyring_base():
    import os

    from jaraco.classes.properties import classproperty
    from keyring.backend import KeyringBackend

    class FakeBackend(KeyringBackend):
        @classproperty
        def priority(cls) -> float:  # type: ignore[override]
            if os.environ.get(FAKE_KEYRING_ENV):
                return 1
            raise RuntimeError("a test backend, used only on request")

    return FakeBackend


class SleepyKeyring(_keyring_base()):
    """Every call hangs until ``release`` is set (60 s at most: a test never blocks forever)."""

    release = threading.Event()

    def _hang(self) -> None:
        type(self).release.wait(60)

    def get_password(self, service: str, username: str) -> str | None:
        self._hang()
        return None

    def set_password(self, service: str, username: str, password: str) -> None:
        self._hang()

    def delete_password(self, service: str, username: str) -> None:
        self._hang()


class LockedKeyring(_keyring_base()):
    """Every call fails the way a locked Secret Service collection does."""

    def get_password(self, service: str, username: str) -> str | None:
        from keyring.errors import KeyringLocked

        raise KeyringLocked("Failed to unlock the collection!")

    def set_password(self, service: str, username: str, password: str) -> None:
        self.get_password(service, username)

    def delete_password(self, service: str, username: str) -> None:
        self.get_password(service, username)


class BrokenKeyring(LockedKeyring):
    """A backend with a bug: any exception, not a keyring one."""

    def get_password(self, service: str, username: str) -> str | None:
        raise RuntimeError("org.freedesktop.DBus.Error.NoReply: no reply within the timeout")


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


def callback(listener: LoopbackListener, query_string: str) -> tuple[int, str]:
    return http_get(f"http://127.0.0.1:{listener.port}/callback?{query_string}")


def file_bytes(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


class GatedKeyring(_keyring_base()):
    """An in-memory keyring; ``gate`` makes the chosen set_password calls hang (at most
    GUARD seconds). Used directly, never through keyring's discovery."""

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
            from keyring.errors import PasswordDeleteError

            raise PasswordDeleteError("missing")
        del self.data[(service, username)]


__all__ = ["queue"]
