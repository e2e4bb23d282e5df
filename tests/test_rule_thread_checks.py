"""The rule-thread checks of test_rule_thread.py can fail, and say what to do when they do: a
rule named nowhere or twice, one named only in a server docstring, a rule the bundled server
does not meet yet, each with the file to edit and what to write there."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tests.test_rule_thread import (
    PENDING_FILE,
    beside_code,
    beside_code_counts,
    literal_places,
    marked_places,
    server_problems,
    thread_problems,
)


def test_a_failure_names_the_file_to_edit_and_what_to_write(tmp_path: Path) -> None:
    """The messages a spec author meets after adding a rule: each names the place and the
    remedy, and a rule the bundled server does not meet yet is no failure of the server's."""
    rules = ["RULE-NEW", "RULE-OLD"]
    outside, inside = Counter({"RULE-MET": 1}), Counter({"RULE-OLD": 1})
    assert server_problems(outside, inside, rules) == [
        "RULE-NEW is named nowhere in reference_server/: write it in a comment on each line "
        "that decides it; while the server does not meet the rule, list it with the reason in "
        f"{PENDING_FILE} instead",
        "RULE-OLD is named in reference_server/ only in docstrings, away from the code: write "
        "it in a comment on each line that decides it; while the server does not meet the "
        f"rule, list it with the reason in {PENDING_FILE} instead",
    ]
    assert server_problems(outside, inside, ["RULE-NEW"], ["RULE-NEW"]) == []
    assert thread_problems("tests", {}, ["RULE-NEW"], ["RULE-NEW"]) == []
    (met,) = server_problems(outside, inside, ["RULE-MET"], ["RULE-MET"])
    assert met.endswith("the server meets it now, so remove it from that list")
    (unmarked,) = thread_problems("tests", {}, ["RULE-NEW"])
    assert unmarked.startswith(
        'RULE-NEW is named nowhere in tests/: add @pytest.mark.rule("RULE-NEW")'
    )
    (unchecked,) = thread_problems("steps", {}, ["RULE-NEW"], ["RULE-NEW"])  # pending or not
    assert "@check(...) of the Then step" in unchecked
    (twice,) = thread_problems("steps", {"RULE-NEW": ["steps/a.py:1", "steps/b.py:2"]}, rules[:1])
    assert twice.endswith("elsewhere in steps/ write RULE.RULE_NEW (steps/rules/ids.py)")


def test_the_count_sees_a_missing_and_a_repeated_rule(tmp_path: Path) -> None:
    code, tests = tmp_path / "code", tmp_path / "tests"
    code.mkdir()
    tests.mkdir()
    (code / "a.py").write_text('X = "RULE-ONE"  # RULE-ONE again; RULE-ONE-MORE is another\n')
    (tests / "test_b.py").write_text(
        'import pytest\n\n@pytest.mark.rule("RULE-ONE", "RULE-TWO")\ndef test_it(): ...\n'
    )
    rules = ["RULE-ONE", "RULE-TWO", "RULE-ONE-MORE"]
    found = thread_problems("steps", literal_places(code, rules), rules)
    assert [problem.split(":")[0] for problem in found] == [
        "RULE-ONE is named 2 times in steps/ (code/a.py",
        "RULE-TWO is named nowhere in steps/",
    ]
    (unmarked,) = thread_problems("tests", marked_places(tests), rules)
    assert unmarked.startswith("RULE-ONE-MORE is named nowhere in tests/")


def test_the_server_check_sees_a_rule_named_only_in_a_docstring(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        '"""RULE-ONE, said at the top."""\n\n\ndef f() -> None:\n'
        '    """RULE-TWO in a docstring, and on the line below."""\n'
        "    return None  # RULE-TWO\n"
    )
    rules = ["RULE-ONE", "RULE-TWO", "RULE-THREE"]
    outside, inside = beside_code_counts(tmp_path, rules)
    assert beside_code(outside, inside, rules) == {
        "missing": ["RULE-THREE"],
        "only in docstrings": ["RULE-ONE"],
    }
