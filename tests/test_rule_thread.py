"""Rule ids are the thread from a rule to its code: besides features/ (and the reports
a run writes), every rule of features/rules.toml is named in exactly three places.

- The step layer (`steps/`, its Python files), once: in the `@check(...)` of the Then step that
  states the rule's check (steps/scenario/kinds.py). Every other mention of a rule there goes
  through `RULE.<ID_WITH_UNDERSCORES>` (steps/rules/ids.py), so searching a rule's id lands on
  its check. (The example profiles, steps/profiles/*.toml, are data about real deployments.)
- The server (`reference_server/`), in a comment on each line that decides the rule (more
  than once where several lines decide it), or for an observation (INFO-*) on the line that
  makes what is observed; never only in a docstring, which sits away from the deciding line.
- The tests (`tests/`), once: as `@pytest.mark.rule(...)` on the test of the server's (or the
  suite's) behaviour for the rule. The tests' data (a broken target's expected verdicts, the
  truth about real deployments) name rules as often as they need: only the mark counts.

So a newcomer goes from a rule to its scenario (features/), its check, the server code and the
test with one search for its id in each place.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = [
    rule["id"] for rule in tomllib.loads((ROOT / "features/rules.toml").read_text())["rule"]
]
#: A word shaped like a rule id: capitals and digits joined by hyphens.
RULE_SHAPED = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+(?![\w-])")
#: A name of the step layer's `RULE` namespace.
RULE_NAME = re.compile(r"\bRULE\.([A-Z][A-Z0-9_]*)")


def literal_counts(folder: Path, rules: list[str]) -> Counter[str]:
    """How often each rule's id is written in the Python files under `folder`."""
    wanted = set(rules)
    found: Counter[str] = Counter()
    for path in sorted(folder.rglob("*.py")):
        found.update(w for w in RULE_SHAPED.findall(path.read_text()) if w in wanted)
    return found


def _docstring_lines(tree: ast.Module) -> set[int]:
    """The lines of every docstring of a module (its own, its classes' and functions')."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def beside_code_counts(folder: Path, rules: list[str]) -> tuple[Counter[str], Counter[str]]:
    """How often each rule's id is written under `folder` outside docstrings (in comments and
    code), and how often inside them."""
    wanted = set(rules)
    outside: Counter[str] = Counter()
    inside: Counter[str] = Counter()
    for path in sorted(folder.rglob("*.py")):
        text = path.read_text()
        docstrings = _docstring_lines(ast.parse(text))
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type not in (tokenize.COMMENT, tokenize.STRING):
                continue
            found = [w for w in RULE_SHAPED.findall(token.string) if w in wanted]
            (inside if token.start[0] in docstrings else outside).update(found)
    return outside, inside


def beside_code(
    outside: Counter[str], inside: Counter[str], rules: list[str]
) -> dict[str, list[str]]:
    """The rules named nowhere, and those named only in docstrings."""
    return {
        "missing": [rule for rule in rules if not outside[rule] and not inside[rule]],
        "only in docstrings": [rule for rule in rules if not outside[rule] and inside[rule]],
    }


def _is_rule_mark(node: ast.expr) -> bool:
    """`pytest.mark.rule` (or `mark.rule`)."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "rule"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "mark"
    )


def marked_rules(folder: Path) -> Counter[str]:
    """How often each id is given to a `pytest.mark.rule(...)` under `folder`."""
    found: Counter[str] = Counter()
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and _is_rule_mark(node.func):
                found.update(
                    arg.value
                    for arg in node.args
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                )
    return found


def once_each(found: Counter[str], rules: list[str]) -> dict[str, list[str]]:
    """The rules named nowhere and those named more than once (with how often)."""
    return {
        "missing": [rule for rule in rules if found[rule] == 0],
        "repeated": [f"{rule} x{found[rule]}" for rule in rules if found[rule] > 1],
    }


def test_each_rule_is_named_once_in_the_step_layer() -> None:
    found = literal_counts(ROOT / "steps", CATALOGUE)
    assert once_each(found, CATALOGUE) == {"missing": [], "repeated": []}


def test_each_rule_is_named_beside_the_server_code_that_decides_it() -> None:
    outside, inside = beside_code_counts(ROOT / "reference_server", CATALOGUE)
    assert beside_code(outside, inside, CATALOGUE) == {"missing": [], "only in docstrings": []}


def test_each_rule_is_the_mark_of_one_test() -> None:
    found = marked_rules(ROOT / "tests")
    assert once_each(found, CATALOGUE) == {"missing": [], "repeated": []}
    assert sorted(set(found) - set(CATALOGUE)) == []


def test_what_looks_like_a_rule_in_the_server_is_one() -> None:
    """No rule id misspelt, nor one left behind by a rule that was renamed or removed."""
    prefixes = {rule.split("-")[0] for rule in CATALOGUE}
    shaped = {
        word
        for path in (ROOT / "reference_server").rglob("*.py")
        for word in RULE_SHAPED.findall(path.read_text())
        if word.split("-")[0] in prefixes
    }
    assert sorted(shaped - set(CATALOGUE)) == []


def test_every_rule_name_in_the_step_layer_resolves() -> None:
    from steps.rules.ids import RULE

    names = {n for p in (ROOT / "steps").rglob("*.py") for n in RULE_NAME.findall(p.read_text())}
    unknown = []
    for name in sorted(names):
        try:
            getattr(RULE, name)
        except AttributeError:
            unknown.append(name)
    assert names and unknown == []


def test_the_step_that_names_a_rule_is_a_then_step_of_its_scenarios() -> None:
    """A rule's id sits on a check its scenarios use, not on any check."""
    from steps.rules.catalogue import FEATURES_DIR
    from steps.rules.coverage import rendered_scenarios
    from steps.run.bdd_registry import STEP_MODULES, step_definitions
    from steps.scenario.kinds import rules_checked_by

    definitions = [(p, f) for p, f in step_definitions() if f.__module__ in STEP_MODULES]
    named = {rule: f for _, f in definitions for rule in rules_checked_by(f)}
    used: dict[str, set[object]] = {rule: set() for rule in CATALOGUE}
    for scenario in rendered_scenarios(FEATURES_DIR):
        for text, keyword in zip(scenario.steps, scenario.step_types, strict=True):
            if keyword != "then":
                continue
            function = next(f for p, f in definitions if p.is_matching(text))
            for rule in scenario.tags & set(CATALOGUE):
                used[rule].add(function)
    astray = [
        f"{rule} on {getattr(f, '__qualname__', f)}"
        for rule, f in named.items()
        if f not in used[rule]
    ]
    assert sorted(set(CATALOGUE) - set(named)) == []
    assert astray == []


def test_the_count_sees_a_missing_and_a_repeated_rule(tmp_path: Path) -> None:
    code, tests = tmp_path / "code", tmp_path / "tests"
    code.mkdir()
    tests.mkdir()
    (code / "a.py").write_text('X = "RULE-ONE"  # RULE-ONE again; RULE-ONE-MORE is another\n')
    (tests / "test_b.py").write_text(
        'import pytest\n\n@pytest.mark.rule("RULE-ONE", "RULE-TWO")\ndef test_it(): ...\n'
    )
    rules = ["RULE-ONE", "RULE-TWO", "RULE-ONE-MORE"]
    assert once_each(literal_counts(code, rules), rules) == {
        "missing": ["RULE-TWO"],
        "repeated": ["RULE-ONE x2"],
    }
    assert once_each(marked_rules(tests), rules) == {"missing": ["RULE-ONE-MORE"], "repeated": []}


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
