"""Small helpers: where things are, CPU pinning, medians, the tools the bench needs."""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent
ROOT = TOOLS.parent
LUA = Path(__file__).resolve().parent / "lua"


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def median(values: list[float]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def group_cpu_seconds(pgid: int) -> float:
    """User + system CPU time of every live process in a process group (server + workers)."""
    ticks = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid:  # fields[2] is the process group, [11:13] utime and stime
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Pinning:
    """Server on one core, load generator on another (taskset), when there are two."""

    server: str | None  # a taskset CPU list, or None for no pinning
    load: str | None

    @classmethod
    def choose(cls, enabled: bool) -> Pinning:
        cpus = sorted(os.sched_getaffinity(0))
        if not enabled or len(cpus) < 2 or shutil.which("taskset") is None:
            return cls(None, None)
        return cls(str(cpus[0]), str(cpus[1]))

    def for_workers(self, workers: int) -> Pinning:
        # Two workers need both cores: then nothing is pinned (the load shares the cores).
        return self if workers == 1 else Pinning(None, None)

    @staticmethod
    def prefix(cpus: str | None) -> list[str]:
        return ["taskset", "-c", cpus] if cpus else []


def ensure_tool(name: str, package: str, notes: list[str]) -> str | None:
    """The tool's path; installed with apt-get when missing and we are root."""
    found = shutil.which(name)
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        log(f"{name} is missing: apt-get install -y {package}")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(
            ["apt-get", "install", "-y", "-q", package],
            env=env,
            capture_output=True,
            check=False,
            timeout=300,
        )
        found = shutil.which(name)
        if found:
            notes.append(f"installed {package} with apt-get")
            return found
    notes.append(f"{name} not available (apt-get install {package}): its figures are skipped")
    return None
