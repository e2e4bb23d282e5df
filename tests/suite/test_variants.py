"""Every rule covers the combinations of the objects its check touches (features/dimensions.toml):
every pair of values of their dimensions, the full product where that is small, each scenario
row saying a value for every dimension (steps/rules/variants.py reads it from the row's own
words). The coverage of every rule is printed (pytest -s) and named in a failure, with the
file to edit."""

from __future__ import annotations

import pytest

from steps.rules.catalogue import FEATURES_DIR, CatalogueError, load_catalogue, parse_catalogue
from steps.rules.combinations import all_pairs, is_cheap, product, uncovered
from steps.rules.coverage import RenderedScenario, rendered_scenarios
from steps.rules.dimensions import (
    DimensionError,
    Space,
    load_dimensions,
    parse_dimensions,
)
from steps.rules.variants import CoveredRow, coverage_by_rule
from steps.run.bdd_registry import STEP_MODULES, step_definitions
from steps.scenario.kinds import touches_of

DIMENSIONS = load_dimensions()
CATALOGUE = load_catalogue()
SCENARIOS = rendered_scenarios(FEATURES_DIR)
COVERAGE = coverage_by_rule(CATALOGUE, DIMENSIONS, SCENARIOS)
DEFINITIONS = [(p, f) for p, f in step_definitions() if f.__module__ in STEP_MODULES]
RULES_WITH_DIMENSIONS = sorted(r for r in CATALOGUE if DIMENSIONS.domain(CATALOGUE[r]))


def _where(row: CoveredRow) -> str:
    return f'features/{row.scenario.file}: "{row.scenario.name}"'


def test_every_object_a_rule_touches_is_in_the_table() -> None:
    for rule in CATALOGUE.values():
        DIMENSIONS.domain(rule)  # raises DimensionError naming the rule


@pytest.mark.parametrize("rule_id", RULES_WITH_DIMENSIONS)
def test_every_row_says_each_dimension_of_its_rule(rule_id: str) -> None:
    unsaid = [
        f"{_where(row)} says no single {name} (found {value!r})"
        for row in COVERAGE[rule_id]
        for name, value in row.combination.items()
        if value is None or value == "?"
    ]
    assert unsaid == [], (
        f"{rule_id}: each row must say its value of every dimension of the rule: an Examples "
        "column named after the dimension, or the value's words in its steps "
        "(features/dimensions.toml):\n" + "\n".join(unsaid)
    )


@pytest.mark.parametrize("rule_id", RULES_WITH_DIMENSIONS)
def test_a_rules_scenarios_cover_its_combinations(rule_id: str) -> None:
    """All pairs at least (the full product when small) in the rows a run takes by default;
    rows tagged @product add the rest of the product, on request."""
    space = DIMENSIONS.space(CATALOGUE[rule_id])
    rows = [row for row in COVERAGE[rule_id] if row.complete]
    default = [row.combination for row in rows if not row.product_only]
    missing = uncovered(space, default)  # type: ignore[arg-type]
    wanted = "the full product" if is_cheap(space) else "every pair"
    assert missing == [], (
        f"{rule_id} must cover {wanted} of {dict(space.domain)}; its scenarios in features/ "
        f"(tag @{rule_id}) miss:\n" + "\n".join(missing) + "\n" + _table(space)
    )
    if any(row.product_only for row in rows):
        every = [row.combination for row in rows]
        rest = uncovered(_as_cheap(space), every)  # type: ignore[arg-type]
        assert rest == [], f"{rule_id}: its @product rows miss {rest}"


def _as_cheap(space: Space) -> Space:
    """The same space, judged as if its whole product were required."""
    return Space(space.domain, space.impossible, space.free)


def _table(space: Space) -> str:
    """The Examples rows the rule needs, in the features' words (what to paste)."""
    rows = product(space) if is_cheap(space) else all_pairs(space)
    header = "| " + " | ".join(space.domain) + " |"
    lines = ["| " + " | ".join(row.values()) + " |" for row in rows]
    return "Rows that would do:\n" + "\n".join([header, *lines])


def test_the_coverage_of_every_rule_is_printed() -> None:
    lines = []
    for rule_id in RULES_WITH_DIMENSIONS:
        space = DIMENSIONS.space(CATALOGUE[rule_id])
        rows = COVERAGE[rule_id]
        covered = {tuple(r.combination.values()) for r in rows if r.complete}
        kind = "product" if is_cheap(space) else "pairs"
        lines.append(
            f"{rule_id:36} {kind:7} {len(covered):3} of {len(product(space)):3} combinations  "
            + " x ".join(f"{name}({len(values)})" for name, values in space.domain.items())
        )
    print("\n".join(lines))
    assert len(lines) == len(RULES_WITH_DIMENSIONS)


def test_only_needs_a_reason() -> None:
    text = '[[rule]]\nid="X"\nsection="1"\nlevel="spec"\ntitle="t"\nonly = {client = ["online"]}\n'
    with pytest.raises(CatalogueError, match="because"):
        parse_catalogue(text)


def test_a_table_naming_an_unknown_dimension_is_refused() -> None:
    text = '[dimension.a]\nwords.x = "x"\n[object.o]\ndimensions = ["b"]\n'
    with pytest.raises(DimensionError, match="no dimensions"):
        parse_dimensions(text)


def test_all_pairs_holds_every_pair_and_skips_the_impossible() -> None:
    space = DIMENSIONS.space(CATALOGUE["LIFETIME-ACCESS-EXPIRES"])
    rows = all_pairs(space)
    assert uncovered(space, rows) == [] or is_cheap(space)
    assert len(rows) < len(product(space))
    assert not any(r["client"] == "online" and r["origin"] == "refresh" for r in rows)


def test_a_never_issued_token_needs_no_application() -> None:
    space = DIMENSIONS.space(CATALOGUE["USERINFO-ERR-INVALID-TOKEN"])
    unknown = [row for row in product(space) if row["invalidity"] == "unknown"]
    assert {(row["client"], row["origin"]) for row in unknown} == {("-", "-")}


def _step_objects(scenario: RenderedScenario) -> set[str]:
    """The objects the scenario's act and checks touch: its When and Then steps' `touches`."""
    found: set[str] = set()
    for text, keyword in zip(scenario.steps, scenario.step_types, strict=True):
        if keyword == "given":
            continue
        for parser, function in DEFINITIONS:
            if parser.is_matching(text):
                found |= set(touches_of(function, parser.parse_arguments(text) or {}))
                break
    return found


def test_a_rule_names_every_object_its_checks_touch() -> None:
    """The objects come from the step definitions (`touches` of @premise and @check), not from
    the rule's words: a rule whose scenario presents a token varies the token's dimensions."""
    unnamed = []
    for scenario in SCENARIOS:
        objects = _step_objects(scenario)
        for rule_id in sorted(scenario.tags & set(CATALOGUE)):
            missing = objects - set(CATALOGUE[rule_id].touches)
            if missing:
                unnamed.append(f"{rule_id}: {sorted(missing)} ({scenario.file}: {scenario.name})")
    assert sorted(set(unnamed)) == [], (
        "a rule's check touches objects its `touches` in features/rules.toml does not name "
        "(add them, and keep a dimension to some values with `only` and `because` where it "
        "must):\n" + "\n".join(sorted(set(unnamed)))
    )


def test_every_object_a_rule_names_is_touched_by_one_of_its_scenarios() -> None:
    touched: dict[str, set[str]] = {}
    for scenario in SCENARIOS:
        for rule_id in scenario.tags & set(CATALOGUE):
            touched.setdefault(rule_id, set()).update(_step_objects(scenario))
    idle = [
        f"{rule.id}: {sorted(set(rule.touches) - touched.get(rule.id, set()))}"
        for rule in CATALOGUE.values()
        if set(rule.touches) - touched.get(rule.id, set())
    ]
    assert idle == [], "rules name objects none of their scenarios touches:\n" + "\n".join(idle)
