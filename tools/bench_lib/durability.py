"""Section 5: the token endpoint with `--durability normal` and `full`, in one run.

Two reference servers with the same data (a user, an application, a pool of grants), one
started with --durability full (SQLite synchronous=FULL: an fsync of the WAL at every
commit). wrk over TLS, keep-alive, on refresh and code exchange, the two servers in turn
(pairs, their order alternating); the figures are full / normal within each pair, medians over
the pairs: req/s and server CPU per request. An fsync costs what the disk makes it cost: the
ratio holds for this machine's disk only.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

from .common import Pinning, group_cpu_seconds, log, median
from .fixtures import Client, bulk_grants, mint_codes, provision, write_lines
from .load import Sample, run_wrk
from .report_format import fmt
from .servers import PinnedServer

MODES = ("normal", "full")
ENDPOINTS = ("refresh", "code_exchange")


def _lines(client: Client, folder: Path, endpoint: str, count: int) -> tuple[Path, str]:
    if endpoint == "refresh":
        tokens = bulk_grants(client, 256).refresh_tokens
        lines = [client.form(grant_type="refresh_token", refresh_token=t) for t in tokens]
        return write_lines(folder / "refresh.txt", lines), "cycle"
    return write_lines(folder / "codes.txt", mint_codes(client, count)), "unique"


def _once(wrk: str, server: PinnedServer, client: Client, endpoint: str, settings: dict) -> Sample:
    folder = server.data_dir.parent
    assert server.process is not None
    for more in (2, 8):  # single-use codes: again with more if they ran out
        count = math.ceil(settings["guess"] * settings["duration"] * more)
        lines, mode = _lines(client, folder, endpoint, max(count, 2000))
        before = group_cpu_seconds(server.process.pid)
        sample = run_wrk(
            wrk,
            server.base_url,
            "POST",
            "/oauth2/token",
            lines,
            mode=mode,
            duration=settings["duration"],
            connections=settings["connections"],
            threads=1,
            cpus=settings["load_cpus"],
        )
        spent = group_cpu_seconds(server.process.pid) - before
        sample.cpu_us = round(1e6 * spent / sample.requests, 1) if sample.requests else None
        if not sample.exhausted:
            break
    return sample


def run(reps: int, duration: int, connections: int, wrk: str | None, pin: bool) -> dict:
    if wrk is None:
        return {"available": False, "reason": "wrk is not installed"}
    pinning = Pinning.choose(pin)
    settings = {
        "duration": duration,
        "connections": connections,
        "load_cpus": pinning.load,
        "guess": 3000,
    }
    runs: dict[str, dict[str, list[Sample]]] = {e: {m: [] for m in MODES} for e in ENDPOINTS}
    with tempfile.TemporaryDirectory(prefix="mb-bench-durability-") as tmp:
        servers: dict[str, tuple[PinnedServer, Client]] = {}
        try:
            for mode in MODES:
                data = Path(tmp) / mode / "data"
                client = provision(data)
                server = PinnedServer(data, pinning.server, extra_args=("--durability", mode))
                servers[mode] = (server.start(), client)
            for rep in range(reps):
                for endpoint in ENDPOINTS:
                    for mode in MODES if rep % 2 == 0 else MODES[::-1]:
                        sample = _once(wrk, *servers[mode], endpoint, settings)
                        runs[endpoint][mode].append(sample)
                        log(
                            f"durability rep {rep + 1}/{reps} {endpoint} {mode}: "
                            f"{sample.rps:.0f} req/s, {sample.cpu_us} us CPU/request, "
                            f"errors {sample.errors}"
                        )
        finally:
            for server, _ in servers.values():
                server.stop()
    return {
        "available": True,
        "settings": {"repetitions": reps, "wrk_duration_s": duration, "connections": connections},
        "endpoints": {endpoint: _summary(runs[endpoint]) for endpoint in ENDPOINTS},
    }


def _summary(runs: dict[str, list[Sample]]) -> dict:
    pairs = list(zip(runs["normal"], runs["full"], strict=True))
    return {
        **{
            mode: {
                "rps": median([s.rps for s in samples]),
                "cpu_us_per_request": median([s.cpu_us for s in samples]),
                "p99_ms": median([s.p99_ms for s in samples]),
                "errors": sum(s.errors for s in samples),
            }
            for mode, samples in runs.items()
        },
        "rps_full_over_normal": median([f.rps / n.rps for n, f in pairs if n.rps]),
        "cpu_full_over_normal": median(
            [f.cpu_us / n.cpu_us for n, f in pairs if n.cpu_us and f.cpu_us]
        ),
    }


def durability_table(section: dict, lines: list[str]) -> None:
    """The report's table of normal against full durability."""
    if not section.get("available"):
        lines += [f"Durability: not available ({section.get('reason')})", ""]
        return
    s = section["settings"]
    lines += [
        f"### Token endpoint, --durability normal and full (wrk, {s['connections']} connections,"
        f" {s['repetitions']} x {s['wrk_duration_s']} s each, in pairs)",
        "",
        "| endpoint | normal req/s | full req/s | req/s full/normal | normal CPU us/req"
        " | full CPU us/req | CPU full/normal | errors |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in section["endpoints"].items():
        normal, full = row["normal"], row["full"]
        lines.append(
            f"| {name} | {fmt(normal['rps'], 0)} | {fmt(full['rps'], 0)}"
            f" | {fmt(row['rps_full_over_normal'])} | {fmt(normal['cpu_us_per_request'], 0)}"
            f" | {fmt(full['cpu_us_per_request'], 0)} | {fmt(row['cpu_full_over_normal'])}"
            f" | {normal['errors'] + full['errors']} |"
        )
    lines.append("")
