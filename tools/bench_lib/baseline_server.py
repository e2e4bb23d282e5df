"""Serve `baseline_app` exactly as `reference_server.serve` serves the reference server.

python -m bench_lib.baseline_server --cert C --key K --port P [--workers N]
(with tools/ on PYTHONPATH). Same uvicorn settings, same socket handling, same TLS files.
"""

from __future__ import annotations

import argparse
import socket
from pathlib import Path

import uvicorn

from reference_server.descriptors import BACKLOG
from reference_server.tlsgate import tls_to_environment


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--limited", action="store_true", help="with the reference server's HTTP limits"
    )
    args = parser.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(BACKLOG)
    sock.set_inheritable(True)
    if args.limited:
        tls_to_environment(Path(args.cert), Path(args.key))
    # The keyword arguments of reference_server/serve.py, apart from the application.
    config = uvicorn.Config(
        "bench_lib.baseline_app:app",
        workers=args.workers,
        backlog=BACKLOG,
        log_level="warning",
        access_log=False,
        server_header=False,
        proxy_headers=False,
        timeout_graceful_shutdown=2,
        # --limited: the same app behind reference_server/tlsgate.py and protocol.py, so that
        # the cost of the TLS gate, head limits, timeouts and cap is one ratio
        # (baseline_limits / baseline); else uvicorn's own TLS and protocol.
        **(
            {"http": "reference_server.tlsgate:http_over_tls", "ws": "none"}
            if args.limited
            else {"ssl_certfile": args.cert, "ssl_keyfile": args.key}
        ),
    )
    try:
        if args.workers > 1:
            from uvicorn.supervisors import Multiprocess

            Multiprocess(config, sockets=[sock]).run()
        else:
            uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


if __name__ == "__main__":
    main()
