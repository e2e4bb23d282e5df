"""The rule index (docs/rules.md, steps/run/rule_index.py) is current and complete: every rule
has an entry with its scenarios, the step that checks it, the server lines that decide it, its
tests and (where a deployment can break it) the fault the generated proof builds for it."""

from __future__ import annotations

import pytest

from steps.run.rule_index import INDEX_FILE, Entry, build_index, render

ENTRIES = build_index()
RULES = sorted(ENTRIES)


def test_the_index_file_is_current() -> None:
    written = INDEX_FILE.read_text(encoding="utf-8") if INDEX_FILE.exists() else ""
    assert written == render(ENTRIES), (
        "docs/rules.md is not the index of this tree: run `python -m steps.run.rule_index "
        "--write` and commit docs/rules.md"
    )


@pytest.mark.parametrize("rule_id", RULES)
def test_every_rule_has_a_complete_entry(rule_id: str) -> None:
    entry: Entry = ENTRIES[rule_id]
    missing = [
        what
        for what, places in (
            ("a scenario (features/*.feature, tagged @ID)", entry.scenarios),
            ("a check (steps/definitions/: @check(ID) on its Then step)", entry.checks),
            ("a server line deciding it (reference_server/: # ID beside it)", entry.server),
            ("a test (tests/: @pytest.mark.rule(ID))", entry.tests),
        )
        if not places
    ]
    if entry.rule.level != "info":  # an observation cannot be broken
        missing += [] if entry.proof else ["a fault (tests/suite/proof/faults/: @fault(ID))"]
    assert missing == [], f"{rule_id}'s index entry lacks " + "; ".join(missing)
