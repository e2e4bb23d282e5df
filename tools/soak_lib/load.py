"""A steady mixed load for a fixed time: what the server serves, how fast, and what goes wrong.

Each worker keeps its own grants (no two workers race on one grant, so every answer has one
right value) and picks requests by weight: whole authorizations (authorize, consent, exchange),
refreshes, userinfo with a valid and with an unknown token, revocations, logins.
"""

from __future__ import annotations

import asyncio
import random
import ssl
import time
from collections import Counter
from dataclasses import dataclass, field

import httpx

from .flows import App, Browser, FlowError, Setup, exchange, expect, refresh, revoke, userinfo

WEIGHTS = {
    "authorize+exchange": 10,
    "refresh": 25,
    "userinfo": 45,
    "userinfo-unknown": 8,
    "revoke": 8,
    "login": 2,
    "page": 2,
}


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # seconds, one per HTTP request
    finished: list[float] = field(default_factory=list)  # monotonic time each one ended
    actions: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    started: float = 0.0

    @property
    def served(self) -> int:
        return len(self.latencies)

    def per_slice(self, start: float, seconds: float, slices: int) -> list[float]:
        """Requests per second in equal slices of the run: does throughput hold up over time?"""
        width = seconds / slices
        counts = [0] * slices
        for moment in self.finished:
            index = int((moment - start) / width)
            if 0 <= index < slices:
                counts[index] += 1
        return [round(count / width, 1) for count in counts]

    def percentile(self, p: float) -> float:
        if not self.latencies:
            return 0.0
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


class _Timed(httpx.AsyncBaseTransport):
    """Records the latency of every request that got an answer."""

    def __init__(self, inner: httpx.AsyncBaseTransport, stats: Stats) -> None:
        self.inner, self.stats = inner, stats

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        started = time.perf_counter()
        response = await self.inner.handle_async_request(request)
        await response.aread()
        self.stats.latencies.append(time.perf_counter() - started)
        self.stats.finished.append(time.monotonic())
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class _Grant:
    app: App
    refresh_token: str
    access_token: str | None


async def _worker(
    base_url: str, context: ssl.SSLContext, setup: Setup, stats: Stats, deadline: float, seed: int
) -> None:
    rng = random.Random(seed)
    names, weights = list(WEIGHTS), list(WEIGHTS.values())
    transport = _Timed(httpx.AsyncHTTPTransport(verify=context), stats)
    grants: list[_Grant] = []
    async with httpx.AsyncClient(base_url=base_url, transport=transport, timeout=30) as client:
        browser = Browser(client, setup.username, setup.password)
        while time.monotonic() < deadline:
            action = rng.choices(names, weights)[0] if grants else "authorize+exchange"
            try:
                await _act(client, browser, grants, action, rng, setup)
                stats.actions[action] += 1
            except (httpx.HTTPError, FlowError) as error:
                stats.errors.append(f"{action}: {error!r}"[:300])


async def _act(client, browser, grants, action, rng, setup) -> None:
    if action == "authorize+exchange":
        app = setup.apps[rng.choice(["web", "installed"])]
        body = expect(await exchange(client, app, await browser.code(app)), 200).json()
        grants.append(_Grant(app, body["refresh_token"], body["access_token"]))
        if len(grants) > 20:
            grant = grants.pop(0)
            expect(await revoke(client, grant.app, grant.refresh_token), 200)
        return
    grant = rng.choice(grants)
    if action == "refresh":
        body = expect(await refresh(client, grant.app, grant.refresh_token), 200).json()
        grant.access_token = body["access_token"]
    elif action == "userinfo":
        if grant.access_token:
            expect(await userinfo(client, grant.access_token), 200)
        else:
            expect(await userinfo(client, "revoked-or-unknown"), 401)
    elif action == "userinfo-unknown":
        expect(await userinfo(client, "x" * 32), 401)
    elif action == "revoke":
        if grant.access_token:
            expect(await revoke(client, grant.app, grant.access_token), 200)
            revoked, grant.access_token = grant.access_token, None
            expect(await userinfo(client, revoked), 401)
    elif action == "login":
        client.cookies.clear()
        await browser.log_in()
    elif action == "page":
        expect(await client.get("/account/authorized"), 200, 303)


async def steady_load(
    base_url: str, context: ssl.SSLContext, setup: Setup, seconds: float, concurrency: int
) -> tuple[Stats, float]:
    """Run the load for `seconds`; the statistics and the time it really took."""
    stats = Stats()
    started = time.monotonic()
    deadline = started + seconds
    workers = [_worker(base_url, context, setup, stats, deadline, i) for i in range(concurrency)]
    await asyncio.wait_for(asyncio.gather(*workers), timeout=seconds + 60)
    stats.started = started
    return stats, time.monotonic() - started
