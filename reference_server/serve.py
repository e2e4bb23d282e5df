"""Serving the application over HTTPS only, with one or more uvicorn workers.

We bind the listening socket ourselves so that port 0 works (the real port is known before
the workers start) and so that `server.json` can tell clients where to connect.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import uvicorn

from .app import DATABASE_NAME
from .limits import Limits
from .state import ServerState
from .tls import TlsFiles, ensure_certificates

READY_FILE = "server.json"


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
    limits: Limits = field(default_factory=Limits)
    purge_interval: float = 60.0


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
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


def serve(options: ServeOptions, announce=print) -> None:
    data_dir = options.data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    if options.cert and options.key:
        tls = TlsFiles(options.cert, options.key, None)
    else:
        tls = ensure_certificates(data_dir, options.host)
    ServerState.open(data_dir / DATABASE_NAME, options.test_clock).store.close()  # schema
    os.environ["MB_OAUTH_SERVER_DATA_DIR"] = str(data_dir)
    os.environ["MB_OAUTH_SERVER_TEST_CLOCK"] = "1" if options.test_clock else "0"
    os.environ["MB_OAUTH_SERVER_PURGE_INTERVAL"] = str(options.purge_interval)
    sock = _bind(options.host, options.port)
    url = base_url(options.host, sock.getsockname()[1])
    os.environ["MB_OAUTH_SERVER_PUBLIC_URL"] = (options.public_url or url).rstrip("/")
    options.limits.to_environment()
    config = uvicorn.Config(
        "reference_server.app:app_from_environment",
        factory=True,
        ssl_certfile=str(tls.cert),
        ssl_keyfile=str(tls.key),
        workers=options.workers,
        # httptools with the limits it lacks (reference_server/protocol.py); no WebSockets.
        http="reference_server.protocol:LimitedHttpProtocol",
        ws="none",
        timeout_keep_alive=int(options.limits.idle_timeout),
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
    except KeyboardInterrupt:
        pass  # Ctrl-C before uvicorn took over the signal: still a clean stop
    finally:
        ready.unlink(missing_ok=True)
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
