"""tools/bench: the command line, the order of the sections and the report."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from . import durability, kit, report, scaling, suite, throughput
from .common import ROOT, ensure_tool, log

SECTIONS = ("server", "scaling", "suite", "kit", "durability")


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="tools/bench",
        description="Benchmarks of the reference server, the conformance suite and the client "
        "kit, loopback only. Every figure is the median of interleaved repetitions; headline "
        "figures are ratios to a baseline measured in the same run.",
    )
    parser.add_argument("--short", action="store_true", help="a quick run (for the tests)")
    parser.add_argument("--only", action="append", choices=SECTIONS, help="repeatable")
    parser.add_argument("--skip", action="append", choices=SECTIONS, default=[])
    parser.add_argument("--reps", type=int, help="repetitions (default 5, --short 1)")
    parser.add_argument("--duration", type=int, help="seconds per wrk run (default 2, short 1)")
    parser.add_argument("--connections", type=int, default=32, help="wrk connections")
    parser.add_argument("--workers", type=int, action="append", help="default: 1 and 2")
    parser.add_argument("--sizes", help="grant counts of the scaling section, comma-separated")
    parser.add_argument("--no-pin", action="store_true", help="do not pin with taskset")
    parser.add_argument("--no-cache", action="store_true", help="rebuild the scaling databases")
    parser.add_argument(
        "--output", type=Path, default=ROOT / "reports" / "bench.json", help="the JSON report"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    short = args.short
    sections = [s for s in (args.only or SECTIONS) if s not in args.skip]
    reps = args.reps or (1 if short else 5)  # --short checks the plumbing, not the figures
    duration = args.duration or (1 if short else 2)
    notes: list[str] = []
    started = time.monotonic()
    doc: dict = {
        "format": "mb-oauth-bench/1",
        "mode": "short" if short else "full",
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": len(os.sched_getaffinity(0)),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_average_at_start": list(os.getloadavg()),
        },
        "sections": sections,
    }
    need_load = any(s in sections for s in ("server", "scaling", "durability"))
    wrk = ensure_tool("wrk", "wrk", notes) if need_load else None
    hey = ensure_tool("hey", "hey", notes) if "server" in sections else None

    if "server" in sections:
        settings = throughput.Settings(
            reps=reps,
            duration=duration,
            hey_duration=None if short else 1.5,
            hey_requests=150,
            connections=args.connections,
            hey_concurrency=16,
            workers=tuple(args.workers or ((1,) if short else (1, 2))),
            pin=not args.no_pin,
        )
        doc["server"] = throughput.run(settings, wrk, hey, notes)
    else:
        doc["server"] = {"available": False, "reason": "not selected"}

    if "scaling" in sections:
        if args.sizes:
            sizes = [int(s) for s in args.sizes.split(",")]
        else:
            sizes = [1_000, 10_000] if short else [1_000, 100_000, 1_000_000]
        doc["scaling"] = scaling.run(
            sizes,
            history=200 if short else 2000,
            reps=reps,
            duration=duration,
            connections=4,
            wrk=wrk,
            pin=not args.no_pin,
            use_cache=not args.no_cache,
        )
    else:
        doc["scaling"] = {"available": False, "reason": "not selected"}

    if "suite" in sections:
        doc["suite"] = suite.run(short=short, notes=notes)
    else:
        doc["suite"] = {"available": False, "reason": "not selected"}

    if "kit" in sections:
        doc["kit"] = kit.run(reps=(3 if short else 15), short=short, notes=notes)
    else:
        doc["kit"] = {"available": False, "reason": "not selected"}

    if "durability" in sections:
        doc["durability"] = durability.run(
            reps=reps, duration=duration, connections=args.connections, wrk=wrk, pin=not args.no_pin
        )
    else:
        doc["durability"] = {"available": False, "reason": "not selected"}

    doc["targets"] = report.targets(doc)
    doc["notes"] = notes
    doc["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
    doc["elapsed_s"] = round(time.monotonic() - started, 1)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.output.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n")
    tmp.replace(args.output)
    print(report.render(doc))
    log(f"wrote {args.output} in {doc['elapsed_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
