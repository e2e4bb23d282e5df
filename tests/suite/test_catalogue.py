"""The rule catalogue and the feature files agree, and every step has exactly one definition."""

from __future__ import annotations

import importlib
import tomllib
from collections import Counter

import pytest
from pytest_bdd.parser import FeatureParser
from pytest_bdd.steps import step_function_context_registry

from steps.plugin import pytest_plugins as STEP_MODULES
from steps.rules.catalogue import (
    FEATURES_DIR,
    LEVELS,
    CatalogueError,
    Rule,
    load_catalogue,
    parse_catalogue,
)
from steps.rules.coverage import check_coverage, load_scenarios, parse_feature

CATALOGUE = {
    "A-ONE": Rule("A-ONE", "4.1", "spec", "one"),
    "A-TWO": Rule("A-TWO", "RFC 6749 5.2", "rfc", "two"),
}


CATALOGUE_FILE = "features/rules.toml"


def test_the_catalogue_covers_the_spec_in_60_to_100_rules_of_all_levels() -> None:
    rules = load_catalogue()
    counts = Counter(rule.level for rule in rules.values())
    assert 60 <= len(rules) <= 100, (
        f"{CATALOGUE_FILE} holds {len(rules)} rules: the catalogue keeps the spec's rules in "
        "60 to 100 (one rule per statement a deployment can break); fold a new rule into the "
        "one it refines (its title and variants), or raise the bound here with the reason"
    )
    assert set(counts) == set(LEVELS), f"{CATALOGUE_FILE} has rules of the levels {counts}"
    untitled = [rule.id for rule in rules.values() if not (rule.title and rule.section)]
    assert not untitled, f"{CATALOGUE_FILE}: give {untitled} a title and a section"


def test_every_rule_has_a_scenario_and_every_scenario_names_catalogued_rules() -> None:
    problems = check_coverage(load_catalogue(), load_scenarios(FEATURES_DIR))
    assert not problems, (
        f"{CATALOGUE_FILE} and features/*.feature disagree (tag a scenario of the rule with "
        "@<RULE-ID> and its level, @spec, @rfc or @info, as the catalogue gives it):\n"
        + "\n".join(problems)
    )


def test_rule_ids_are_unique_in_the_file() -> None:
    entries = tomllib.loads((FEATURES_DIR / "rules.toml").read_text())["rule"]
    ids = [entry["id"] for entry in entries]
    assert len(ids) == len(set(ids))


def test_a_duplicate_rule_id_is_refused() -> None:
    text = '[[rule]]\nid="X"\nsection="1"\nlevel="spec"\ntitle="t"\n' * 2
    with pytest.raises(CatalogueError, match="duplicate"):
        parse_catalogue(text)


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(CatalogueError, match="level"):
        parse_catalogue('[[rule]]\nid="X"\nsection="1"\nlevel="must"\ntitle="t"\n')


def _feature(*scenarios: str) -> str:
    return "Feature: sample\n\n" + "\n".join(scenarios)


def test_the_checker_reports_a_rule_without_scenario() -> None:
    sample = parse_feature(_feature("  @A-ONE @spec\n  Scenario: one\n    Given x\n"))
    assert check_coverage(CATALOGUE, sample) == ["rule A-TWO has no scenario"]


def test_the_checker_reports_a_tag_that_names_no_rule() -> None:
    sample = parse_feature(
        _feature(
            "  @A-ONE @spec\n  Scenario: one\n    Given x\n",
            "  @A-TWO @A-THREE @rfc\n  Scenario: two\n    Given x\n",
        )
    )
    problems = check_coverage(CATALOGUE, sample)
    assert len(problems) == 1 and "@A-THREE names no rule" in problems[0]


@pytest.mark.parametrize(
    ("tags", "complaint"),
    [
        ("@A-ONE", "exactly one level tag"),
        ("@A-ONE @spec @rfc", "exactly one level tag"),
        ("@A-ONE @rfc", "differ"),
        ("@spec", "no rule tag"),
    ],
)
def test_the_checker_reports_bad_level_tags(tags: str, complaint: str) -> None:
    sample = parse_feature(
        _feature(
            f"  {tags}\n  Scenario: one\n    Given x\n",
            "  @A-ONE @A-TWO-ALT @spec\n  Scenario: spare\n    Given x\n",
            "  @A-TWO @rfc\n  Scenario: two\n    Given x\n",
        )
    )
    problems = [p for p in check_coverage(CATALOGUE, sample) if '"one"' in p]
    assert problems and complaint in problems[0]


def test_the_checker_counts_tags_on_examples_and_reports_reused_names() -> None:
    outline = (
        "  @spec\n  Scenario Outline: one <x>\n    Given <x>\n\n"
        "    @A-ONE\n    Examples:\n      | x |\n      | 1 |\n"
    )
    again = "  @A-TWO @rfc\n  Scenario: one <x>\n    Given x\n"
    problems = check_coverage(CATALOGUE, parse_feature(_feature(outline, again)))
    assert len(problems) == 1 and "scenario name used twice" in problems[0]


# --- steps -----------------------------------------------------------------------------


def _contexts() -> list[object]:
    for module in STEP_MODULES:
        importlib.import_module(module)
    return list(step_function_context_registry.values())


def _rendered_steps() -> list[tuple[str, str, str]]:
    found = []
    for path in sorted(FEATURES_DIR.glob("*.feature")):
        feature = FeatureParser(str(FEATURES_DIR), path.name).parse()
        for template in feature.scenarios.values():
            contexts = [c for ex in template.examples for c in ex.as_contexts()] or [{}]
            for context in contexts:
                for step in template.render(context).steps:
                    found.append((path.name, step.type, step.name))
    return found


def test_every_step_of_every_scenario_has_exactly_one_definition() -> None:
    contexts = _contexts()
    problems = []
    for file, kind, text in sorted(set(_rendered_steps())):
        matches = [
            c
            for c in contexts
            if c.type in (None, kind) and c.parser.is_matching(text)  # type: ignore[attr-defined]
        ]
        if len(matches) != 1:
            problems.append(f"features/{file}: {kind} {text!r} has {len(matches)} definitions")
    assert not problems, (
        "every step needs exactly one definition in steps/definitions/ (a Then step with "
        "@then and @check, a Given or When step with @premise):\n" + "\n".join(problems)
    )


def test_the_step_check_would_see_an_undefined_step() -> None:
    contexts = _contexts()
    text = "the application sends a carrier pigeon"
    assert not any(c.parser.is_matching(text) for c in contexts)  # type: ignore[attr-defined]
