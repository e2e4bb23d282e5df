"""Serve `baseline_app` exactly as `reference_server.serve` serves the reference server.

python -m bench_lib.baseline_server --cert C --key K --port P [--workers N]
(with tools/ on PYTHONPATH). Same uvicorn settings, same socket handling, same TLS files.
"""

from __future__ import annotations

import argparse
import socket

import uvicorn


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
    sock.listen(2048)
    sock.set_inheritable(True)
    # The keyword arguments of reference_server/serve.py, apart from the application.
    config = uvicorn.Config(
        "bench_lib.baseline_app:app",
        ssl_certfile=args.cert,
        ssl_keyfile=args.key,
        workers=args.workers,
        log_level="warning",
        access_log=False,
        server_header=False,
        proxy_headers=False,
        timeout_graceful_shutdown=2,
        # --limited: the same app behind reference_server/protocol.py, so that the cost of
        # the head limits, timeouts and cap is one ratio (baseline_limits / baseline).
        **(
            {"http": "reference_server.protocol:LimitedHttpProtocol", "ws": "none"}
            if args.limited
            else {}
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
