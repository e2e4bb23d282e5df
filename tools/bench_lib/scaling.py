"""Section 4: token-endpoint latency against the number of stored grants.

Databases of 1k, 100k and 1M grants (each with an access token and a redeemed code) are
bulk-inserted once and kept in a cache folder (keyed by size and by the server's schema), then
copied for each run. One server per size, all up at once; the repetitions go round the sizes
(interleaved) with a light load (few connections), so the latency is the service time and
not queueing.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import tempfile
import time
from pathlib import Path

from reference_server.app import DATABASE_NAME
from reference_server.schema import SCHEMA

from .common import Pinning, group_cpu_seconds, log, median
from .fixtures import Client, bulk_grants, mint_codes, provision, write_lines
from .load import Sample, run_wrk
from .servers import PinnedServer

KEEP = 256  # grants whose refresh tokens the load uses


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mb-oauth-bench"


def _database(size: int, history: int, folder: Path, use_cache: bool) -> tuple[Client, list[str]]:
    """A data folder with `size` grants; returns the client and KEEP refresh tokens."""
    schema = hashlib.sha256(SCHEMA.encode()).hexdigest()[:12]
    cached = cache_root() / f"grants-{size}-history-{history}-{schema}"
    data = folder / "data"
    if use_cache and (cached / "client.json").exists():
        data.mkdir(parents=True, mode=0o700)
        shutil.copyfile(cached / DATABASE_NAME, data / DATABASE_NAME)
        info = json.loads((cached / "client.json").read_text())
        client = Client(data / DATABASE_NAME, *info["client"])
        _settle(data / DATABASE_NAME)
        return client, info["refresh_tokens"]
    started = time.monotonic()
    client = provision(data)
    pool = bulk_grants(client, size, keep=KEEP, live=False, history=history)
    took = time.monotonic() - started
    log(f"built a database of {size} grants (history {history}) in {took:.0f} s")
    if use_cache:
        for stale in cache_root().glob("grants-*"):  # built for another schema: never used
            if stale.is_dir() and not stale.name.endswith(f"-{schema}"):
                shutil.rmtree(stale, ignore_errors=True)
        cached.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = cached / (DATABASE_NAME + ".tmp")
        shutil.copyfile(data / DATABASE_NAME, tmp)
        tmp.replace(cached / DATABASE_NAME)
        info = {
            "client": [client.client_id, client.client_secret, client.app_id, client.user_id],
            "refresh_tokens": pool.refresh_tokens,
        }
        (cached / "client.json").write_text(json.dumps(info))
    _settle(data / DATABASE_NAME)
    return client, pool.refresh_tokens


def _settle(database: Path) -> None:
    """Write the fresh copy to disk now: else the server's first checkpoint fsync pays for it."""
    fd = os.open(database, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def run(
    sizes: list[int],
    *,
    history: int,
    reps: int,
    duration: int,
    connections: int,
    wrk: str | None,
    pin: bool,
    use_cache: bool,
) -> dict:
    if wrk is None:
        return {"available": False, "reason": "wrk is not installed"}
    pinning = Pinning.choose(pin)
    # (grants, past tokens per kept grant): the sizes, then the smallest with a long history
    cases = [(size, 0) for size in sizes] + ([(sizes[0], history)] if history else [])
    results: dict[tuple[int, int], dict[str, list[Sample]]] = {case: {} for case in cases}
    with tempfile.TemporaryDirectory(prefix="mb-bench-scale-") as tmp:
        servers: dict[tuple[int, int], tuple[PinnedServer, Client, Path]] = {}
        try:
            for case in cases:
                size, past = case
                folder = Path(tmp) / f"grants-{size}-history-{past}"
                client, refresh = _database(size, past, folder, use_cache)
                lines = write_lines(
                    folder / "refresh.txt",
                    [client.form(grant_type="refresh_token", refresh_token=t) for t in refresh],
                )
                server = PinnedServer(folder / "data", pinning.server)
                server.start()
                servers[case] = (server, client, lines)
            for server, _, lines in servers.values():  # warm the page cache
                run_wrk(
                    wrk,
                    server.base_url,
                    "POST",
                    "/oauth2/token",
                    lines,
                    mode="cycle",
                    duration=1,
                    connections=connections,
                    threads=1,
                    cpus=pinning.load,
                )
            for rep in range(reps):
                order = list(servers.items())  # odd repetitions go backwards
                for case, (server, client, lines) in order if rep % 2 == 0 else order[::-1]:
                    for name in ("refresh", "code_exchange"):
                        if name == "refresh":
                            path, mode = lines, "cycle"
                        else:
                            runs = results[case].get("refresh", [])
                            guess = runs[-1].rps if runs else 3000
                            count = max(1000, math.ceil(guess * duration * 2))
                            path = write_lines(
                                lines.parent / "codes.txt", mint_codes(client, count)
                            )
                            mode = "unique"
                        before = group_cpu_seconds(server.process.pid)  # type: ignore[union-attr]
                        sample = run_wrk(
                            wrk,
                            server.base_url,
                            "POST",
                            "/oauth2/token",
                            path,
                            mode=mode,
                            duration=duration,
                            connections=connections,
                            threads=1,
                            cpus=pinning.load,
                        )
                        spent = group_cpu_seconds(server.process.pid) - before  # type: ignore[union-attr]
                        sample.cpu_us = 1e6 * spent / sample.requests if sample.requests else None
                        results[case].setdefault(name, []).append(sample)
                        log(
                            f"rep {rep + 1}/{reps} {case[0]} grants, history {case[1]}, {name}: "
                            f"p50 {sample.p50_ms:.2f} ms, {sample.rps:.0f} req/s, "
                            f"errors {sample.errors}"
                        )
        finally:
            for server, _, _ in servers.values():
                server.stop()
    smallest = (sizes[0], 0)

    def row(case: tuple[int, int]) -> dict:
        found: dict = {"grants": case[0], "past_tokens_per_grant": case[1]}
        for name in ("refresh", "code_exchange"):
            runs = results[case].get(name, [])
            base = results[smallest].get(name, [])
            ratios = [s.p50_ms / b.p50_ms for s, b in zip(runs, base, strict=False) if b.p50_ms]
            cpu_ratios = [
                s.cpu_us / b.cpu_us
                for s, b in zip(runs, base, strict=False)
                if s.cpu_us and b.cpu_us
            ]
            found[name] = {
                "cpu_us_per_request": median([s.cpu_us for s in runs]),
                "cpu_ratio_to_smallest": median(cpu_ratios),
                "p50_ms": median([s.p50_ms for s in runs]),
                "p99_ms": median([s.p99_ms for s in runs]),
                "rps": median([s.rps for s in runs]),
                "errors": sum(s.errors for s in runs),
                "p50_ratio_to_smallest": median(ratios),
                "repetitions": [s.as_dict() for s in runs],
            }
        return found

    return {
        "available": True,
        "settings": {
            "sizes": sizes,
            "history": history,
            "repetitions": reps,
            "wrk_duration_s": duration,
            "wrk_connections": connections,
            "cache": str(cache_root()) if use_cache else None,
        },
        "rows": [row((size, 0)) for size in sizes],
        "history": row((sizes[0], history)) if history else None,
    }
