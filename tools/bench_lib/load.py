"""Load generators: wrk (keep-alive, Lua script) and hey (a full TLS handshake per request)."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from .common import LUA, Pinning


@dataclass
class Sample:
    """One load run against one endpoint."""

    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    non2xx: int
    socket_errors: int
    exhausted: bool = False  # unique lines (codes) ran out: the rate is not valid
    cpu_us: float | None = None  # server CPU time (all its processes) per request

    @property
    def errors(self) -> int:
        return self.non2xx + self.socket_errors

    def as_dict(self) -> dict:
        return {**asdict(self), "errors": self.errors}


def run_wrk(
    wrk: str,
    base_url: str,
    method: str,
    path: str,
    lines: Path,
    *,
    mode: str,
    duration: int,
    connections: int,
    threads: int,
    cpus: str | None,
    close: bool = False,
) -> Sample:
    command = [
        *Pinning.prefix(cpus),
        wrk,
        f"-t{threads}",
        f"-c{connections}",
        f"-d{duration}s",
        "--timeout",
        "5s",
        "-s",
        str(LUA / "load.lua"),
        base_url + path,
        "--",
        method,
        path,
        str(lines),
        mode,
        str(threads),
    ]
    if close:
        command.append("close")
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=duration + 30, check=False
    )
    match = re.search(r"^BENCH-JSON (\{.*\})$", result.stdout, re.MULTILINE)
    if result.returncode != 0 or match is None:
        raise RuntimeError(f"wrk failed ({result.returncode}): {result.stderr or result.stdout}")
    data = json.loads(match.group(1))
    seconds = data["duration_us"] / 1e6
    return Sample(
        rps=data["requests"] / seconds if seconds else 0.0,
        p50_ms=data["p50_us"] / 1000,
        p99_ms=data["p99_us"] / 1000,
        requests=data["requests"],
        non2xx=data["non2xx"],
        socket_errors=data["socket_errors"] + data["timeouts"],
        exhausted=bool(data["exhausted"]),
    )


_HEY_LATENCY = re.compile(r"^\s+(\d+)%+ in ([\d.]+) secs", re.MULTILINE)
_HEY_STATUS = re.compile(r"^\s+\[(\d+)\]\s+(\d+) responses", re.MULTILINE)
_HEY_ERROR = re.compile(r"^\s+\[(\d+)\]\t", re.MULTILINE)


def run_hey(
    hey: str,
    url: str,
    *,
    method: str = "GET",
    body: str | None = None,
    bearer: str | None = None,
    duration: float | None = None,
    requests: int | None = None,
    concurrency: int,
    cpus: str | None,
) -> Sample:
    """hey -disable-keepalive: a new connection and a full TLS handshake for every request."""
    command = [*Pinning.prefix(cpus), hey, "-disable-keepalive", "-host", "localhost"]
    command += ["-c", str(concurrency), "-m", method, "-t", "10"]
    if duration is not None:
        command += ["-z", f"{duration}s"]
    else:
        command += ["-n", str(requests or 200)]
    if body is not None:
        command += ["-T", "application/x-www-form-urlencoded", "-d", body]
    if bearer is not None:
        command += ["-H", f"Authorization: Bearer {bearer}"]
    command.append(url)
    budget = (duration or 0) + 60
    result = subprocess.run(command, capture_output=True, text=True, timeout=budget, check=False)
    out = result.stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if result.returncode != 0 or rate is None:
        raise RuntimeError(f"hey failed ({result.returncode}): {result.stderr or out}")
    percentiles = {int(p): float(s) * 1000 for p, s in _HEY_LATENCY.findall(out)}
    statuses = {int(code): int(n) for code, n in _HEY_STATUS.findall(out)}
    socket_errors = (
        sum(int(n) for n in _HEY_ERROR.findall(out.split("Error distribution:")[1]))
        if "Error distribution:" in out
        else 0
    )
    ok = sum(n for code, n in statuses.items() if 200 <= code < 300)
    return Sample(
        rps=float(rate.group(1)),
        p50_ms=percentiles.get(50, 0.0),
        p99_ms=percentiles.get(99, 0.0),
        requests=sum(statuses.values()),
        non2xx=sum(statuses.values()) - ok,
        socket_errors=socket_errors,
    )
