"""Serving the application over HTTPS only, with one or more uvicorn workers.

We bind the listening socket ourselves so that port 0 works (the real port is known before
the workers start) and so that `server.json` can tell clients where to connect.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from pathlib import Path

import uvicorn

from . import descriptors
from .app import DATABASE_NAME
from .guard import GuardPolicy
from .limits import Limits
from .state import ServerState
from .tls import TlsFiles, check_pair, ensure_certificates
from .tlsgate import tls_to_environment

READY_FILE = "server.json"
DURABILITY = {
    "normal": "Durability: normal (SQLite WAL, synchronous=NORMAL): an answered token survives "
    "a crash of the server; a power cut may lose the last ones (--durability full)",
    "full": "Durability: full (SQLite WAL, synchronous=FULL): every commit is on disk before "
    "its answer",
}
LOCK_FILE = "server.lock"  # held by the one server of a data folder while it runs


class ServeError(Exception):
    """The server cannot start; the message says why in a sentence."""


class _Terminated(Exception):
    """SIGTERM: unwinds like Ctrl-C's KeyboardInterrupt, so the same cleanup runs."""


@dataclass(frozen=True)
class ServeOptions:
    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 8443
    cert: Path | None = None
    key: Path | None = None
    test_clock: bool = False
    workers: int = 1
    public_url: str | None = None  # where users reach the server; default: where it listens
    limits: Limits = field(default_factory=Limits)  # its max_connections: see below
    purge_interval: float = 60.0
    # Connections per worker; None: the default cap, or fewer where the descriptor limit
    # is lower. A cap the limit cannot hold is refused (descriptors.py).
    max_connections: int | None = None
    #: Failed guesses per address and name before the guard delays (guard.py).
    guard_free: int = GuardPolicy.free
    durability: str = "normal"  # storage.SYNCHRONOUS: what a commit survives


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(descriptors.BACKLOG)
    except OSError as error:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    sock.set_inheritable(True)
    return sock


def base_url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"https://{shown}:{port}"


def _write_ready_file(data_dir: Path, url: str, tls: TlsFiles, test_clock: bool) -> Path:
    """Written once the server listens: where clients connect and which CA they trust."""
    path = data_dir / READY_FILE
    info = {
        "base_url": url,
        "ca_file": str(tls.ca.resolve()) if tls.ca else None,
        "pid": os.getpid(),
        "test_clock": test_clock,
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(info, indent=2))
    tmp.replace(path)
    return path


@contextmanager
def _only_server(data_dir: Path) -> Iterator[None]:
    """An exclusive lock on the data folder for the server's lifetime: a second `run` on it
    refuses to start, and so never touches the first one's files (its server.json above all).
    The kernel drops the lock when the process ends, however it ends."""
    fd = os.open(data_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ServeError(_served_by_another(data_dir)) from None
        yield
    finally:
        os.close(fd)


def _served_by_another(data_dir: Path) -> str:
    try:
        info = json.loads((data_dir / READY_FILE).read_text())
        where = f" (pid {info['pid']}, {info['base_url']})"
    except (OSError, ValueError, KeyError, TypeError):
        where = ""
    return f"another server is already running on the data folder {data_dir}{where}; stop it first"


@contextmanager
def _sigterm_as_exception() -> Iterator[None]:
    """SIGTERM stops the server like Ctrl-C. uvicorn catches both while it serves and, once
    stopped, raises the signal again: with the default SIGTERM action the process died there,
    before the cleanup below (server.json stayed behind)."""

    def terminated(signum: int, frame: object) -> None:
        raise _Terminated

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _tls_files(options: ServeOptions, data_dir: Path) -> TlsFiles:
    if options.cert and options.key:
        tls = TlsFiles(options.cert, options.key, None)
    else:
        tls = ensure_certificates(data_dir, options.host)
    check_pair(tls.cert, tls.key)
    return tls


def serve(options: ServeOptions, announce: Callable[[str], None] = print) -> None:
    """Serve until Ctrl-C or SIGTERM; raises ServeError or TlsError when it cannot start."""
    data_dir = options.data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    # A signal before uvicorn took it over, or raised again by it: a clean stop.
    with _sigterm_as_exception(), _only_server(data_dir), suppress(KeyboardInterrupt, _Terminated):
        _serve(options, data_dir, announce)


def _limits(options: ServeOptions, announce: Callable[[str], None]) -> Limits:
    """The limits with a connection cap that the descriptor limit holds (raised first)."""
    limit = descriptors.raise_limit()
    try:
        cap = descriptors.connection_cap(
            limit, options.max_connections, options.limits.max_connections
        )
    except ValueError as error:
        raise ServeError(str(error)) from None
    announce(f"Connections: at most {cap} per worker; {limit.describe()}")
    return replace(options.limits, max_connections=cap)


def _serve(options: ServeOptions, data_dir: Path, announce: Callable[[str], None]) -> None:
    tls = _tls_files(options, data_dir)
    limits = _limits(options, announce)
    ServerState.open(data_dir / DATABASE_NAME, options.test_clock).store.close()  # schema
    os.environ["MB_OAUTH_SERVER_DATA_DIR"] = str(data_dir)
    os.environ["MB_OAUTH_SERVER_TEST_CLOCK"] = "1" if options.test_clock else "0"
    os.environ["MB_OAUTH_SERVER_PURGE_INTERVAL"] = str(options.purge_interval)
    os.environ["MB_OAUTH_SERVER_DURABILITY"] = options.durability
    os.environ["MB_OAUTH_SERVER_GUARD_FREE"] = str(options.guard_free)
    sock = _bind(options.host, options.port)
    url = base_url(options.host, sock.getsockname()[1])
    os.environ["MB_OAUTH_SERVER_PUBLIC_URL"] = (options.public_url or url).rstrip("/")
    limits.to_environment()
    tls_to_environment(tls.cert, tls.key)
    config = uvicorn.Config(
        "reference_server.app:app_from_environment",
        factory=True,
        workers=options.workers,
        # TLS begun by our protocol, not by the loop (tlsgate.py), then httptools with the
        # limits it lacks (protocol.py); no WebSockets.
        http="reference_server.tlsgate:http_over_tls",
        ws="none",
        backlog=descriptors.BACKLOG,
        timeout_keep_alive=int(limits.idle_timeout),
        log_level="warning",
        access_log=False,  # URLs can carry codes and tokens: nothing of a request is logged
        server_header=False,
        proxy_headers=False,
        timeout_graceful_shutdown=2,
    )
    ready = data_dir / READY_FILE

    def started() -> None:
        _write_ready_file(data_dir, url, tls, options.test_clock)
        announce(f"Serving {url}")
        announce(DURABILITY[options.durability])
        if tls.ca:
            announce(f"Clients must trust the CA in {tls.ca}")
        if options.test_clock:
            announce("Test clock enabled: POST /_test/clock advance=SECONDS")

    try:
        if options.workers > 1:
            from uvicorn.supervisors import Multiprocess

            started()  # the socket is listening: connections wait for the workers
            Multiprocess(config, sockets=[sock]).run()
        else:
            _AnnouncingServer(config, started).run(sockets=[sock])
    finally:
        ready.unlink(missing_ok=True)  # ours: the lock keeps any other server out
        sock.close()


class _AnnouncingServer(uvicorn.Server):
    """Writes the ready file only once uvicorn has started and handles signals itself."""

    def __init__(self, config: uvicorn.Config, on_started: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_started = on_started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self._on_started()
