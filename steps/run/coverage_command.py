"""`mb-oauth-conformance coverage [RULE ...]`: what each rule's scenarios cover.

For a spec author adding a rule or a dimension: the objects the rule's check touches, the
values of their dimensions it must cover (every pair, or the full product where small), how
many of those its scenarios cover, and, when some are missing, Examples rows that would do.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from steps.rules.catalogue import FEATURES_DIR, Rule, load_catalogue
from steps.rules.combinations import all_pairs, is_cheap, product, uncovered
from steps.rules.coverage import rendered_scenarios
from steps.rules.dimensions import Dimensions, load_dimensions
from steps.rules.variants import CoveredRow, coverage_by_rule

SUBCOMMAND = "coverage"


def rule_coverage(rule: Rule, rows: Sequence[CoveredRow], dimensions: Dimensions) -> str:
    """One rule's coverage, as the command prints it."""
    space = dimensions.space(rule)
    if not space.domain:
        return f"{rule.id}: touches nothing that varies ({len(rows)} scenario(s))"
    kind = "the full product" if is_cheap(space) else "every pair"
    every = product(space)
    default = [r.combination for r in rows if r.complete and not r.product_only]
    allrows = [r.combination for r in rows if r.complete]
    got = {tuple(c.values()) for c in allrows}
    lines = [
        f"{rule.id} ({rule.level}): touches {', '.join(rule.touches)}",
        *(f"  {name}: {', '.join(values)}" for name, values in space.domain.items()),
        f"  must cover {kind}: {len(got)} of {len(every)} combinations covered "
        f"({sum(1 for r in rows if r.product_only)} row(s) only with --combinations product)",
    ]
    if rule.because:
        lines.append(f"  keeps {', '.join(rule.only)}: {rule.because}")
    missing = uncovered(space, default)  # type: ignore[arg-type]
    unsaid = [r.scenario.name for r in rows if not r.complete]
    lines += [f"  a row that says no single value: {name}" for name in unsaid]
    if missing:
        lines.append("  missing: " + "; ".join(missing))
        needed = every if is_cheap(space) else all_pairs(space)
        lines.append("  rows that would do:")
        lines.append("    | " + " | ".join(space.domain) + " |")
        lines += ["    | " + " | ".join(row.values()) + " |" for row in needed]
    return "\n".join(lines)


@click.command(SUBCOMMAND, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("rule_ids", nargs=-1, metavar="[RULE ...]")
def coverage(rule_ids: tuple[str, ...]) -> None:
    """Print what each rule's scenarios cover of its dimensions (all rules without RULE).

    The dimensions come from the objects the rule's check touches (features/dimensions.toml,
    `touches` in features/rules.toml); exit status 2 for a rule id the catalogue lacks, 1 when
    a rule printed misses a combination it must cover.
    """
    catalogue = load_catalogue()
    unknown = [rule for rule in rule_ids if rule not in catalogue]
    if unknown:
        raise click.UsageError(f"not rules of features/rules.toml: {', '.join(unknown)}")
    dimensions = load_dimensions()
    table = coverage_by_rule(catalogue, dimensions, rendered_scenarios(FEATURES_DIR))
    incomplete = 0
    for rule_id in rule_ids or tuple(catalogue):
        text = rule_coverage(catalogue[rule_id], table[rule_id], dimensions)
        incomplete += "missing:" in text or "says no single value" in text
        click.echo(text)
    if incomplete:
        raise SystemExit(1)
