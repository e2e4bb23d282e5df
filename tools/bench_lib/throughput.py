"""Section 1: server throughput over TLS, keep-alive (wrk) and a new connection per request (hey).

Every repetition runs every endpoint once, baseline included, one after the other
(interleaved); a ratio is endpoint/baseline within one repetition, and the figure reported is
the median over repetitions.

Over 300 lines on purpose: one measurement, from starting the server under test to the
summary; its wrk and hey runs share the target, the settings and the sampling.
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

from .common import Pinning, group_cpu_seconds, log, median
from .fixtures import Client, bulk_grants, mint_codes, provision, write_lines
from .load import Sample, run_hey, run_wrk
from .servers import BaselineServer, PinnedServer

# name -> (method, path, mode of the lines file)
ENDPOINTS: dict[str, tuple[str, str, str]] = {
    "baseline": ("GET", "/", "cycle"),
    # The baseline app behind the reference server's HTTP limits (reference_server/protocol.py)
    "baseline_limits": ("GET", "/", "cycle"),
    "userinfo": ("GET", "/oauth2/userinfo", "cycle"),
    "refresh": ("POST", "/oauth2/token", "cycle"),
    "code_exchange": ("POST", "/oauth2/token", "unique"),
    "revoke": ("POST", "/oauth2/revoke", "unique"),
}
# hey sends one body again and again: single-use codes cannot be measured with it.
HEY_ENDPOINTS = ("baseline", "baseline_limits", "userinfo", "refresh", "revoke")
FIRST_GUESS_RPS = 6000  # codes/tokens to mint before a rate is known, per second of load


@dataclass
class Settings:
    reps: int
    duration: int  # seconds per wrk run
    hey_duration: float | None  # seconds per hey run (None: hey_requests requests)
    hey_requests: int
    connections: int
    hey_concurrency: int
    workers: tuple[int, ...]
    pin: bool


@dataclass
class Target:
    """One worker count: the reference server, its baseline, and the request files."""

    workers: int
    pinning: Pinning
    folder: Path
    client: Client
    server: PinnedServer
    baseline: BaselineServer
    limited: BaselineServer
    files: dict[str, Path] = field(default_factory=dict)
    singles: dict[str, str] = field(default_factory=dict)  # what hey sends
    spare_refresh: list[str] = field(default_factory=list)


def _start(workers: int, pinning: Pinning, root: Path) -> Target:
    folder = root / f"workers-{workers}"
    folder.mkdir()
    data = folder / "data"
    client = provision(data)
    pool = bulk_grants(client, 600)
    # 256 refresh tokens, 64 bearer tokens (grants never refreshed), the rest for hey.
    refresh, bearer = pool.refresh_tokens[:256], pool.access_tokens[300:364]
    files = {
        "baseline": write_lines(folder / "baseline.txt", [""]),
        "baseline_limits": write_lines(folder / "baseline-limits.txt", [""]),
        "userinfo": write_lines(folder / "bearer.txt", bearer),
        "refresh": write_lines(
            folder / "refresh.txt",
            [client.form(grant_type="refresh_token", refresh_token=t) for t in refresh],
        ),
    }
    singles = {
        "bearer": pool.access_tokens[400],
        "refresh": client.form(grant_type="refresh_token", refresh_token=pool.refresh_tokens[401]),
        "revoke": client.form(token=pool.refresh_tokens[402]),
    }
    server = PinnedServer(data, pinning.server, workers=workers)
    server.start()
    baseline = BaselineServer(
        data / "server.pem",
        data / "server-key.pem",
        pinning.server,
        workers,
        folder / "baseline.log",
    )
    limited = BaselineServer(
        data / "server.pem",
        data / "server-key.pem",
        pinning.server,
        workers,
        folder / "baseline-limits.log",
        limited=True,
    )
    try:
        baseline.start()
        limited.start()
    except Exception:
        server.stop()
        baseline.stop()
        raise
    return Target(workers, pinning, folder, client, server, baseline, limited, files, singles)


def _url(target: Target, endpoint: str) -> str:
    if endpoint == "baseline":
        return target.baseline.base_url
    if endpoint == "baseline_limits":
        return target.limited.base_url
    return target.server.base_url


def _unique_lines(target: Target, endpoint: str, count: int) -> Path:
    if endpoint == "code_exchange":
        lines = mint_codes(target.client, count)
    else:
        pool = bulk_grants(target.client, count)
        lines = [target.client.form(token=t) for t in pool.refresh_tokens]
    return write_lines(target.folder / f"{endpoint}.txt", lines)


def _wrk_once(
    wrk: str, target: Target, endpoint: str, settings: Settings, guess: float, threads: int
) -> Sample:
    method, path, mode = ENDPOINTS[endpoint]
    url = _url(target, endpoint)
    for attempt in range(2):
        if mode == "unique":
            count = math.ceil(guess * settings.duration * (1.6 if attempt == 0 else 4))
            lines = _unique_lines(target, endpoint, max(count, 2000))
        else:
            lines = target.files[endpoint]
        pgid = _pgid(target, endpoint)
        before = group_cpu_seconds(pgid)
        sample = run_wrk(
            wrk,
            url,
            method,
            path,
            lines,
            mode=mode,
            duration=settings.duration,
            connections=settings.connections,
            threads=threads,
            cpus=target.pinning.load,
        )
        sample.cpu_us = _per_request(group_cpu_seconds(pgid) - before, sample.requests)
        if not sample.exhausted:
            return sample
        log(f"{endpoint}: ran out of single-use lines, again with more")
    return sample


def _hey_once(hey: str, target: Target, endpoint: str, settings: Settings) -> Sample:
    method, path, _ = ENDPOINTS[endpoint]
    url = _url(target, endpoint) + path
    body = target.singles.get(endpoint) if method == "POST" else None
    bearer = target.singles["bearer"] if endpoint == "userinfo" else None
    pgid = _pgid(target, endpoint)
    before = group_cpu_seconds(pgid)
    sample = run_hey(
        hey,
        url,
        method=method,
        body=body,
        bearer=bearer,
        duration=settings.hey_duration,
        requests=settings.hey_requests,
        concurrency=settings.hey_concurrency,
        cpus=target.pinning.load,
    )
    sample.cpu_us = _per_request(group_cpu_seconds(pgid) - before, sample.requests)
    return sample


def _pgid(target: Target, endpoint: str) -> int:
    process = {"baseline": target.baseline, "baseline_limits": target.limited}.get(
        endpoint, target.server
    ).process
    assert process is not None
    return process.pid  # both are started in a new session: their group id is their pid


def _per_request(seconds: float, requests: int) -> float | None:
    return round(1e6 * seconds / requests, 1) if requests else None


Pairs = dict[str, list[tuple[Sample, Sample]]]  # endpoint -> (baseline, endpoint) runs


def summarise(samples: dict[str, list[Sample]], pairs: Pairs) -> dict[str, dict]:
    """Medians per endpoint; ratios are medians over pairs (baseline run just before)."""
    table: dict[str, dict] = {}
    for endpoint, runs in samples.items():
        twins = pairs.get(endpoint, [])
        ratios = [e.rps / b.rps for b, e in twins if b.rps and not e.exhausted]
        cpu_ratios = [b.cpu_us / e.cpu_us for b, e in twins if b.cpu_us and e.cpu_us]
        p50 = median([s.p50_ms for s in runs])
        p99 = median([s.p99_ms for s in runs])
        table[endpoint] = {
            "rps": median([s.rps for s in runs]),
            "cpu_us_per_request": median([s.cpu_us for s in runs]),
            "cpu_ratio": median(cpu_ratios) if endpoint != "baseline" else 1.0,
            "p50_ms": p50,
            "p99_ms": p99,
            "p99_over_p50": (p99 / p50) if p50 and p99 is not None else None,
            "errors": sum(s.errors for s in runs),
            "non2xx": sum(s.non2xx for s in runs),
            "socket_errors": sum(s.socket_errors for s in runs),
            "requests": sum(s.requests for s in runs),
            "ratio": median(ratios) if endpoint != "baseline" else 1.0,
            "repetitions": [s.as_dict() for s in runs],
        }
    return table


def run(settings: Settings, wrk: str | None, hey: str | None, notes: list[str]) -> dict:
    if wrk is None and hey is None:
        return {"available": False, "reason": "neither wrk nor hey is installed"}
    pinning = Pinning.choose(settings.pin)
    result: dict = {
        "available": True,
        "settings": {
            "repetitions": settings.reps,
            "method": "each endpoint run right after a baseline run; ratio = median over the pairs",
            "wrk_duration_s": settings.duration,
            "wrk_connections": settings.connections,
            "hey_duration_s": settings.hey_duration,
            "hey_requests": None if settings.hey_duration else settings.hey_requests,
            "hey_concurrency": settings.hey_concurrency,
            "server_cpus": pinning.server,
            "load_cpus": pinning.load,
            "pinning_note": "1 worker: server and load generator on different cores; "
            "2 workers: nothing pinned",
        },
        "keepalive": {},
        "new_connection": {},
    }
    with tempfile.TemporaryDirectory(prefix="mb-bench-") as tmp:
        targets: list[Target] = []
        try:
            for workers in settings.workers:
                log(f"starting the reference server and the baseline, {workers} worker(s)")
                targets.append(_start(workers, pinning.for_workers(workers), Path(tmp)))
            keep: dict[int, dict[str, list[Sample]]] = {t.workers: {} for t in targets}
            fresh: dict[int, dict[str, list[Sample]]] = {t.workers: {} for t in targets}
            keep_pairs: dict[int, Pairs] = {t.workers: {} for t in targets}
            fresh_pairs: dict[int, Pairs] = {t.workers: {} for t in targets}
            warm = replace(settings, duration=1)
            for target in targets if wrk else []:  # first requests pay for imports, caches
                threads = 1 if target.pinning.load else 2
                for endpoint in ("baseline", "userinfo", "refresh"):
                    _wrk_once(wrk, target, endpoint, warm, FIRST_GUESS_RPS, threads)
            # Each endpoint run comes right after a baseline run: on this shared machine the
            # available CPU changes within seconds, and a ratio is only fair within a pair.
            for rep in range(settings.reps):
                for target in targets:
                    threads = 1 if target.pinning.load else 2
                    tag = f"rep {rep + 1}/{settings.reps} workers={target.workers}"
                    order = [e for e in ENDPOINTS if e != "baseline"]
                    for endpoint in order if rep % 2 == 0 else order[::-1]:
                        if not wrk:
                            break
                        runs = keep[target.workers]
                        pair = []
                        for name in ("baseline", endpoint):
                            done = runs.setdefault(name, [])
                            guess = done[-1].rps if done else FIRST_GUESS_RPS
                            sample = _wrk_once(wrk, target, name, settings, guess, threads)
                            done.append(sample)
                            pair.append(sample)
                        keep_pairs[target.workers].setdefault(endpoint, []).append(
                            (pair[0], pair[1])
                        )
                        log(
                            f"{tag} keep-alive {endpoint}: {pair[1].rps:.0f} req/s "
                            f"(baseline {pair[0].rps:.0f}), p50 {pair[1].p50_ms:.1f} ms, "
                            f"p99 {pair[1].p99_ms:.1f} ms, errors {pair[1].errors}"
                        )
                    order = [e for e in HEY_ENDPOINTS if e != "baseline"]
                    for endpoint in order if rep % 2 == 0 else order[::-1]:
                        if not hey:
                            break
                        runs = fresh[target.workers]
                        pair = []
                        for name in ("baseline", endpoint):
                            sample = _hey_once(hey, target, name, settings)
                            runs.setdefault(name, []).append(sample)
                            pair.append(sample)
                        fresh_pairs[target.workers].setdefault(endpoint, []).append(
                            (pair[0], pair[1])
                        )
                        log(
                            f"{tag} new-connection {endpoint}: {pair[1].rps:.0f} req/s "
                            f"(baseline {pair[0].rps:.0f}), errors {pair[1].errors}"
                        )
            for target in targets:
                key = f"workers_{target.workers}"
                result["keepalive"][key] = (
                    summarise(keep[target.workers], keep_pairs[target.workers]) if wrk else {}
                )
                result["new_connection"][key] = (
                    summarise(fresh[target.workers], fresh_pairs[target.workers]) if hey else {}
                )
        finally:
            for target in targets:
                target.server.stop()
                target.baseline.stop()
                target.limited.stop()
    if hey:
        notes.append(
            "new connection per request: hey -disable-keepalive (full TLS handshake each time); "
            "code exchange is not measured that way (hey repeats one body, codes are single-use)"
        )
    return result
