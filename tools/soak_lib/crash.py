"""Crash and restart: SIGKILL the server under load, restart it, and audit what survived.

While several clients log in, exchange codes, refresh, revoke and call userinfo, each keeps a
model of its grants: the access token that must work, those a rule has ended, and those whose
fate the crash made unknown (a request sent, no answer). After the kill: the database must be
sound with nothing half-written, and after the restart the model must hold, token by token.
"""

from __future__ import annotations

import asyncio
import random
import ssl
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from .flows import (
    LOG_PROBLEMS,
    App,
    Browser,
    FlowError,
    Setup,
    exchange,
    expect,
    refresh,
    revoke,
    userinfo,
)
from .integrity import integrity_problems


@dataclass
class Grant:
    app: App
    refresh_token: str | None
    current: str | None  # the access token that must work
    dead: list[str] = field(default_factory=list)  # ended by a rule: must not work
    unknown: list[str] = field(default_factory=list)  # the crash hid their fate
    refresh_unknown: bool = False


@dataclass
class CrashReport:
    ok: bool
    problems: list[str]
    operations_before_kill: int
    grants: int
    tokens_checked: int

    def summary(self) -> str:
        verdict = "passed" if self.ok else "FAILED"
        text = (
            f"crash-restart check {verdict}: killed after {self.operations_before_kill} "
            f"operations; {self.grants} grants, {self.tokens_checked} tokens checked "
            "after restart"
        )
        return "\n  ".join([text, *self.problems[:20]])


@dataclass
class _Run:
    grants: list[Grant] = field(default_factory=list)
    operations: int = 0
    problems: list[str] = field(default_factory=list)
    enough: asyncio.Event = field(default_factory=asyncio.Event)


async def _client_load(
    run: _Run, base_url: str, context: ssl.SSLContext, setup: Setup, seed: int, kill_after: int
) -> None:
    """One client until the server dies: every answer checked against the model."""
    rng = random.Random(seed)
    mine: list[Grant] = []
    async with httpx.AsyncClient(base_url=base_url, verify=context, timeout=10) as client:
        browser = Browser(client, setup.username, setup.password)
        pending: Grant | None = None
        try:
            while True:
                run.operations += 1
                if run.operations >= kill_after:
                    run.enough.set()
                action = rng.choice(
                    ["flow", "refresh", "refresh", "userinfo", "revoke", "login"]
                    if mine
                    else ["flow"]
                )
                if action == "login":
                    client.cookies.clear()
                    await browser.log_in()
                elif action == "flow":
                    app = setup.apps[rng.choice(["web", "installed"])]
                    code = await browser.code(app)
                    body = expect(await exchange(client, app, code), 200).json()
                    grant = Grant(app, body.get("refresh_token"), body["access_token"])
                    mine.append(grant)
                    run.grants.append(grant)
                else:
                    grant = rng.choice(mine)
                    pending = grant
                    await _step(client, grant, action)
                    pending = None
        except (httpx.TransportError, FlowError) as error:
            if isinstance(error, FlowError) or not run.enough.is_set():
                run.problems.append(f"during load: {error!r}")
            if pending is not None:  # sent, never answered: its effect is unknown
                if pending.current:
                    pending.unknown.append(pending.current)
                pending.current = None
                # Neither a refresh nor an access token's revocation ends the refresh token.


async def _step(client: httpx.AsyncClient, grant: Grant, action: str) -> None:
    if action == "refresh" and grant.refresh_token:
        body = expect(await refresh(client, grant.app, grant.refresh_token), 200).json()
        if body.get("refresh_token") != grant.refresh_token:
            raise FlowError("the refresh response carries another refresh token")
        if grant.current:
            grant.dead.append(grant.current)
        grant.current = body["access_token"]
    elif action == "userinfo" and grant.current:
        expect(await userinfo(client, grant.current), 200)
    elif action == "revoke" and grant.current and grant.refresh_token:
        expect(await revoke(client, grant.app, grant.current), 200)
        grant.dead.append(grant.current)
        grant.current = None


async def _audit(run: _Run, base_url: str, context: ssl.SSLContext) -> int:
    """After the restart: the model, token by token. Returns how many tokens were checked."""
    checked = 0
    async with httpx.AsyncClient(base_url=base_url, verify=context, timeout=10) as client:
        for grant in run.grants:
            if grant.current:
                checked += 1
                if (await userinfo(client, grant.current)).status_code != 200:
                    run.problems.append("an access token received before the crash fails")
            for token in grant.dead:
                checked += 1
                if (await userinfo(client, token)).status_code != 401:
                    run.problems.append("an access token ended by a rule works again")
            if grant.refresh_token and not grant.refresh_unknown:
                checked += 1
                answer = await refresh(client, grant.app, grant.refresh_token)
                if answer.status_code != 200:
                    run.problems.append(f"a refresh token fails after restart: {answer.text}")
    return checked


async def crash_restart_check(
    server, setup: Setup, *, clients: int = 4, kill_after: int = 60, seed: int = 1
) -> CrashReport:
    """Load, SIGKILL once `kill_after` operations have started, check, restart, audit."""
    run = _Run()
    context = server.ssl_context()
    base_url = server.base_url
    loads = [
        asyncio.create_task(_client_load(run, base_url, context, setup, seed + i, kill_after))
        for i in range(clients)
    ]
    waiting = asyncio.create_task(run.enough.wait())
    await asyncio.wait([waiting, *loads], return_when=asyncio.FIRST_COMPLETED)
    killed_at = run.operations
    await asyncio.to_thread(server.kill)
    waiting.cancel()
    await asyncio.wait_for(asyncio.gather(*loads), timeout=60)
    database = Path(server.data_dir) / "server.sqlite3"
    run.problems += [f"after the kill: {p}" for p in integrity_problems(database, False)]
    await asyncio.to_thread(server.start)
    checked = await _audit(run, server.base_url, server.ssl_context())
    # The restarted server still does whole flows.
    async with httpx.AsyncClient(base_url=server.base_url, verify=context, timeout=10) as c:
        try:
            browser = Browser(c, setup.username, setup.password)
            app = setup.apps["installed"]
            body = expect(await exchange(c, app, await browser.code(app)), 200).json()
            expect(await userinfo(c, body["access_token"]), 200)
        except (httpx.TransportError, FlowError) as error:
            run.problems.append(f"after restart: {error!r}")
    run.problems += [f"after restart: {p}" for p in integrity_problems(database)]
    log = Path(server.data_dir).parent / f"{Path(server.data_dir).name}.log"
    if log.exists():
        lines = log.read_text(errors="replace").splitlines()
        run.problems += [f"server log: {line}" for line in lines if LOG_PROBLEMS.search(line)]
    return CrashReport(not run.problems, run.problems, killed_at, len(run.grants), checked)
