"""`tools/soak --attacks`: the review's attacks against servers of their own.

Three servers on loopback: one with the default settings (the floods, random client_ids), one
started under a descriptor limit of 1,024 (the common default, soft and hard), one with 3 s
idle and head timeouts (when the TCP connection ends after a close_notify). Figures only.
"""

from __future__ import annotations

import time
from pathlib import Path

from . import attacks
from .flows import provision

FULL = {"handshakes": 3000, "half_heads": 3000, "random_ids": 6000, "low_limit_handshakes": 1500}
SHORT = {"handshakes": 300, "half_heads": 300, "random_ids": 600, "low_limit_handshakes": 1200}


def _server(work: Path, name: str, extra: tuple[str, ...] = (), nofile: int | None = None):
    from reference_server.launcher import ServerProcess

    class Limited(ServerProcess):
        def _command(self, *args: str) -> list[str]:
            command = super()._command(*args)
            return ["prlimit", f"--nofile={nofile}:{nofile}", "--", *command] if nofile else command

    return Limited(work / name, extra_args=extra)


def _settle(server, bound: float = 90.0) -> None:
    """Until the server holds no more descriptors than when idle (the last attack is over)."""
    pid = server.process.pid
    time.sleep(1.0)
    idle = attacks.descriptors(pid)
    attacks.until(lambda: attacks.descriptors(pid) <= idle, bound)


def run(work: Path, short: bool) -> dict:
    counts = SHORT if short else FULL
    figures: dict = {"counts": counts}
    with _server(work, "default") as server:
        provision(server)
        figures["random_client_ids"] = attacks.random_client_ids(server, counts["random_ids"])
        figures["half_head_flood"] = attacks.half_head_flood(server, counts["half_heads"])
        _settle(server)
        figures["handshake_flood"] = attacks.handshake_flood(server, counts["handshakes"])
    with _server(work, "low-limit", nofile=1024) as server:
        figures["handshake_flood_at_1024_descriptors"] = attacks.handshake_flood(
            server, counts["low_limit_handshakes"]
        )
    timeouts = ("--idle-timeout", "3", "--header-timeout", "3")
    with _server(work, "short-timeouts", timeouts) as server:
        figures["idle_close"] = attacks.idle_close(server)
    return figures


def show(figures: dict) -> None:
    for name, value in figures.items():
        print(f"{name}:")
        for key, item in value.items():
            print(f"  {key}: {item}")
