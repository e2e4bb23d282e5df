"""tools/proof: the command line of the generated proof."""

from __future__ import annotations

import argparse
import datetime
import signal
import sys
import time
from pathlib import Path

from steps.rules.catalogue import load_catalogue
from tests.suite.proof.gaps import record_gaps
from tests.suite.proof.plan import COMBINATIONS, plan
from tests.suite.proof.report import Proof, write
from tests.suite.proof.runner import Prover, gap, supports_combinations

ROOT = Path(__file__).resolve().parents[3]


def day_seed(today: datetime.date | None = None) -> int:
    """A seed that changes every day (so repeated runs over time see different targets)."""
    return int((today or datetime.date.today()).strftime("%Y%m%d"))


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="tools/proof",
        description="Build a deployment broken on one combination of one rule for every "
        "combination the features claim to cover, run the whole suite against each and want "
        "exactly that rule to fail (every other verdict unchanged or 'could not be checked').",
    )
    parser.add_argument("--rule", action="append", default=[], help="only this rule (repeatable)")
    parser.add_argument(
        "--target",
        action="append",
        default=[],
        help="only this target, by the name a report or a failed sample gives (repeatable)",
    )
    parser.add_argument("--sample", type=int, help="a random sample of this many targets")
    parser.add_argument("--per-rule", type=int, help="at most this many targets of each rule")
    parser.add_argument("--seed", type=int, help="the sample's seed (default: today's date)")
    parser.add_argument("--combinations", choices=COMBINATIONS, default="pairs")
    parser.add_argument("--jobs", type=int, default=1, help="proxies (each with a server)")
    parser.add_argument("--report", type=Path, default=ROOT / "reports" / "proof")
    parser.add_argument("--list", action="store_true", help="list the targets, run nothing")
    parser.add_argument(
        "--trace", action="store_true", help="write each request's classification (runs/*/trace)"
    )
    parser.add_argument(
        "--resume", action="store_true", help="keep the runs an earlier proof in --report finished"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="each target runs its own rule's scenarios only: whether its fault is caught, "
        "not whether another rule suffers (not a proof; a fault's quick check)",
    )
    parser.add_argument(
        "--finished-only",
        action="store_true",
        help="run nothing: report on the runs an earlier proof in --report finished",
    )
    parser.add_argument(
        "--record-gaps",
        action="store_true",
        help="write the targets missed or with collateral to tests/suite/proof/known_gaps.json",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    unknown = set(args.rule) - set(load_catalogue())
    if unknown:
        print(f"tools/proof: no rules {sorted(unknown)}", file=sys.stderr)
        return 2
    if args.combinations == "product" and not supports_combinations():
        print("tools/proof: the suite runs no product rows yet (no --combinations)")
    planned = plan(args.combinations)
    if args.rule:
        planned = planned.of_rules(args.rule)
    named = {t.name for t in planned.targets}
    if set(args.target) - named:
        print(f"tools/proof: no targets {sorted(set(args.target) - named)}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else day_seed()
    targets = planned.sample(args.sample, seed)
    if args.target:
        targets = [t for t in targets if t.name in set(args.target)]
    if args.per_rule:
        chosen = set(planned.per_rule(args.per_rule, seed))
        targets = [t for t in targets if t in chosen]
    print(
        f"{len(planned.targets)} combinations claimed by complete rows; {len(targets)} "
        f"targets to build; {len(planned.incomplete)} rules with incomplete rows"
        + (f"; seed {seed}" if args.sample or args.per_rule else "")
    )
    if args.list:
        for target in targets:
            print(f"  {target.rule}: {target.words}")
        return 0
    signal.signal(signal.SIGTERM, _stop)  # servers and proxies are shut down on the way out
    started = time.monotonic()
    prover = Prover(args.report / "runs", args.jobs, args.combinations, trace=args.trace)
    prover.resume, prover.finished_only = args.resume, args.finished_only
    prover.quick = args.quick
    outcomes = prover.prove(targets)
    assert prover.baseline is not None
    settings = {
        "combinations": args.combinations,
        "sample": args.sample,
        "per_rule": args.per_rule,
        "seed": seed if args.sample or args.per_rule else None,
        "jobs": args.jobs,
        "rules": args.rule,
    }
    elapsed = time.monotonic() - started
    if args.finished_only:  # the earlier runs' own times, as if run one after another
        elapsed = prover.baseline_seconds + sum(o.seconds for o in outcomes)
    proof = Proof(planned, outcomes, prover.baseline, prover.baseline_seconds, elapsed, settings)
    paths = write(proof, args.report)
    if args.record_gaps:
        found = {o.target.name: gap(o) for o in outcomes if not o.clean}
        record_gaps((o.target.name for o in outcomes), found)
    figures = proof.figures()
    print(
        f"{figures['targets']} targets: {figures['caught']} caught, {figures['missed']} missed, "
        f"{figures['collateral']} with collateral; reports: {', '.join(map(str, paths))}"
    )
    return 0 if figures["clean"] == figures["targets"] else 1
