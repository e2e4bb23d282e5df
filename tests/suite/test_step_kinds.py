"""Premises and checks stay apart (steps/scenario/kinds.py): every step definition says which it is,
and the features use them so: Given and When steps are premises, Then steps are checks."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from steps.outcomes import PremiseFailed
from steps.rules.catalogue import FEATURES_DIR
from steps.rules.coverage import rendered_scenarios
from steps.run.bdd_registry import STEP_MODULES, step_definitions
from steps.scenario.kinds import CHECK, PREMISE, kind_of, premise

KIND_OF_KEYWORD = {"given": PREMISE, "when": PREMISE, "then": CHECK}


def test_every_step_definition_is_a_premise_or_a_check() -> None:
    unmarked = [
        getattr(function, "__qualname__", "?")
        for _, function in step_definitions()
        if function.__module__ in STEP_MODULES and kind_of(function) not in (PREMISE, CHECK)
    ]
    assert unmarked == []


def test_given_and_when_steps_are_premises_and_then_steps_checks() -> None:
    definitions = [(p, f) for p, f in step_definitions() if f.__module__ in STEP_MODULES]
    wrong = []
    for scenario in rendered_scenarios(FEATURES_DIR):
        for text, keyword in zip(scenario.steps, scenario.step_types, strict=True):
            matching = [f for parser, f in definitions if parser.is_matching(text)]
            assert matching, f"{scenario.file}: no step definition for {text!r}"
            kind = kind_of(matching[0])
            if kind != KIND_OF_KEYWORD[keyword]:
                wrong.append(f"{scenario.file}: {keyword.title()} {text!r} is a {kind}")
    assert sorted(set(wrong)) == []


def test_a_failed_premise_names_the_rule_that_judges_it() -> None:
    @premise(see=lambda kind: f"RULE-{kind.upper()}")
    def step(kind: str) -> None:
        raise AssertionError("no code")

    request = SimpleNamespace(config=SimpleNamespace(stash=pytest.Stash()))
    with pytest.raises(PremiseFailed) as raised:
        step(kind="installed", request=request)
    assert raised.value.see == "RULE-INSTALLED"
    assert raised.value.reason == "no code, see RULE-INSTALLED"
