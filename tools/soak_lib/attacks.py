"""The review's attacks, as measurements: what each costs the server.

Each function runs one attack against a running server and returns its figures (descriptors
and memory of the server process, rows, times). No verdicts here: `tools/soak --attacks`
prints them and the hardening tests assert on their own, smaller versions.
"""

from __future__ import annotations

import asyncio
import secrets
import socket
import ssl
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx

from .database import snapshot
from .rawtls import RawTls

HALF_HEAD = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "


def descriptors(pid: int) -> int:
    """Open file descriptors of a process (Linux: /proc)."""
    return len(list(Path(f"/proc/{pid}/fd").iterdir()))


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def address(server) -> tuple[str, int]:
    host, port = server.base_url.removeprefix("https://").rsplit(":", 1)
    return host.strip("[]"), int(port)


def until(condition: Callable[[], bool], bound: float, step: float = 0.25) -> float | None:
    """Seconds until `condition` holds, or None if it did not within `bound`."""
    started = time.monotonic()
    while time.monotonic() - started < bound:
        if condition():
            return round(time.monotonic() - started, 1)
        time.sleep(step)
    return None


def normal_request(server, timeout: float = 30.0) -> dict:
    """A normal client on a new connection: its answer and how long it took."""
    started = time.monotonic()
    try:
        with httpx.Client(verify=server.ssl_context(), timeout=timeout) as http:
            status: int | str = http.get(server.url("/oauth2/userinfo")).status_code
    except httpx.HTTPError as error:
        status = type(error).__name__
    return {"status": status, "seconds": round(time.monotonic() - started, 2)}


def handshake_flood(server, count: int, bound: float = 90.0) -> dict:
    """`count` TCP connections that never send a ClientHello, held open by the attacker."""
    pid = server.process.pid
    idle = descriptors(pid)
    rss_before = rss_mb(pid)
    held: list[socket.socket] = []
    refused = 0
    started = time.monotonic()
    for _ in range(count):
        try:
            held.append(socket.create_connection(address(server), timeout=10))
        except OSError:
            refused += 1
    opened = time.monotonic()
    time.sleep(2.0)
    figures = {
        "connections": count,
        "refused_at_connect": refused,
        "seconds_to_open": round(opened - started, 1),
        "descriptors_idle": idle,
        "descriptors_2s_after": descriptors(pid),
        "rss_mb_before": rss_before,
        "rss_mb_2s_after": rss_mb(pid),
        "normal_client_during": normal_request(server),
    }
    back = until(lambda: descriptors(pid) <= idle + 5, bound)
    figures["seconds_until_released"] = None if back is None else round(back + 2.0, 1)
    figures["normal_client_after"] = normal_request(server)
    for sock in held:
        sock.close()
    return figures


async def _half_head(server, context: ssl.SSLContext, gate: asyncio.Semaphore, keep: list) -> None:
    host, port = address(server)
    async with gate:
        try:
            _, writer = await asyncio.open_connection(host, port, ssl=context, server_hostname=host)
            writer.write(HALF_HEAD)
            await writer.drain()
        except OSError:
            return
    keep.append(writer)


async def _half_heads(server, count: int) -> list:
    context, gate, keep = server.ssl_context(), asyncio.Semaphore(64), []
    await asyncio.gather(*(_half_head(server, context, gate, keep) for _ in range(count)))
    return keep


def half_head_flood(server, count: int) -> dict:
    """`count` TLS connections, each sending half a request head and then nothing."""
    pid = server.process.pid
    idle, rss_before = descriptors(pid), rss_mb(pid)
    loop = asyncio.new_event_loop()
    try:
        started = time.monotonic()
        writers = loop.run_until_complete(_half_heads(server, count))
        opened = time.monotonic()
        samples = {}
        for after in (1, 12):
            time.sleep(max(0.0, opened + after - time.monotonic()))
            samples[f"descriptors_{after}s_after"] = descriptors(pid)
        figures = {
            "connections": count,
            "opened": len(writers),
            "seconds_to_open": round(opened - started, 1),
            "descriptors_idle": idle,
            **samples,
            "rss_mb_before": rss_before,
            "rss_mb_12s_after": rss_mb(pid),
            "normal_client_after": normal_request(server),
        }
        for writer in writers:
            writer.transport.abort()
        loop.run_until_complete(asyncio.sleep(0.5))
    finally:
        loop.close()
    return figures


async def _random_ids(server, count: int, concurrency: int) -> Counter:
    statuses: Counter = Counter()
    share = count // concurrency

    async def one_client() -> None:
        async with httpx.AsyncClient(
            base_url=server.base_url, verify=server.ssl_context(), timeout=30
        ) as http:
            for _ in range(share):
                data = {
                    "grant_type": "refresh_token",
                    "refresh_token": secrets.token_urlsafe(16),
                    "client_id": secrets.token_urlsafe(16),
                    "client_secret": secrets.token_urlsafe(24),
                }
                statuses[(await http.post("/oauth2/token", data=data)).status_code] += 1

    await asyncio.gather(*(one_client() for _ in range(concurrency)))
    return statuses


def random_client_ids(server, count: int, concurrency: int = 8) -> dict:
    """`count` token requests from one address, each with a random unknown client_id."""
    database = server.data_dir / "server.sqlite3"
    before = snapshot(database)
    started = time.monotonic()
    statuses = asyncio.run(_random_ids(server, count, concurrency))
    elapsed = time.monotonic() - started
    after = snapshot(database)
    return {
        "requests": sum(statuses.values()),
        "seconds": round(elapsed, 1),
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "throttle_rows_before": before["rows"]["throttle"],
        "throttle_rows_after": after["rows"]["throttle"],
        "bytes_in_use_before": before["bytes_in_use"],
        "bytes_in_use_after": after["bytes_in_use"],
    }


def idle_close(server, bound: float = 45.0) -> dict:
    """A Picard-like client (never answers a close_notify): one request, then idle; and a
    connection that sends nothing after its handshake. When does each TCP connection end?"""
    figures = {}
    for case in ("after_a_response", "silent_after_handshake"):
        client = RawTls.connect(address(server), server.ssl_context(), timeout=10)
        try:
            if case == "after_a_response":
                client.send(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                client.response()
            ending = client.wait_for_end(bound)
        finally:
            client.close()
        gap = (
            None
            if ending.close_notify is None or ending.tcp_closed is None
            else round(ending.tcp_closed - ending.close_notify, 2)
        )
        figures[case] = {
            "close_notify_after": _rounded(ending.close_notify),
            "tcp_closed_after": _rounded(ending.tcp_closed),
            "tcp_close_after_close_notify": gap,
            "reset": ending.reset,
        }
    return figures


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 2)
