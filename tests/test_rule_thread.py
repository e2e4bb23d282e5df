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

A rule the bundled server does not meet yet ("spec first, server later": listed with its reason
in steps/profiles/bundled_deviations.toml) has no server line and no marked test until it does.

So a newcomer goes from a rule to its scenario (features/), its check, the server code and the
test with one search for its id in each place. Each failure says which file to edit and what to
write there (docs/adding-a-rule.md is the whole list).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import tomllib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = [
    rule["id"] for rule in tomllib.loads((ROOT / "features/rules.toml").read_text())["rule"]
]
PENDING_FILE = "steps/profiles/bundled_deviations.toml"
#: Rules the bundled server does not meet yet: no server line, no marked test.
PENDING = tomllib.loads((ROOT / PENDING_FILE).read_text()).get("known_deviations", {})
#: What to write where, for a rule named nowhere in a place or more than once.
REMEDY = {
    "steps": (
        "write it in the @check(...) of the Then step that decides it (steps/definitions/)",
        "keep it in that @check(...) only; elsewhere in steps/ write RULE.{name} "
        "(steps/rules/ids.py)",
    ),
    "reference_server": (
        "write it in a comment on each line that decides it; while the server does not meet "
        f"the rule, list it with the reason in {PENDING_FILE} instead",
        "",
    ),
    "tests": (
        "add @pytest.mark.rule(\"{rule}\") to the test of the server's (or the suite's) "
        "behaviour for it (tests/server/ for the server's); while the server does not meet "
        f"the rule, list it with the reason in {PENDING_FILE} instead",
        "keep the mark on one test, the one of that behaviour",
    ),
}
#: A word shaped like a rule id: capitals and digits joined by hyphens.
RULE_SHAPED = re.compile(r"(?<![\w-])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+(?![\w-])")
#: A name of the step layer's `RULE` namespace.
RULE_NAME = re.compile(r"\bRULE\.([A-Z][A-Z0-9_]*)")


def literal_places(folder: Path, rules: list[str]) -> dict[str, list[str]]:
    """Where each rule's id is written in the Python files under `folder` (file:line)."""
    wanted = set(rules)
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for word in RULE_SHAPED.findall(line):
                if word in wanted:
                    where = f"{path.relative_to(folder.parent).as_posix()}:{number}"
                    found.setdefault(word, []).append(where)
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


def marked_places(folder: Path) -> dict[str, list[str]]:
    """Where each id is given to a `pytest.mark.rule(...)` under `folder` (file:line)."""
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and _is_rule_mark(node.func):
                where = f"{path.relative_to(folder.parent).as_posix()}:{node.lineno}"
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        found.setdefault(arg.value, []).append(where)
    return found


def thread_problems(
    place: str, found: dict[str, list[str]], rules: list[str], pending: Iterable[str] = ()
) -> list[str]:
    """Each rule named nowhere in `place` (steps, tests) or more than once, with the file to
    edit and what to write there. A pending rule needs no marked test yet."""
    missing, repeated = REMEDY[place]
    waiting = set(pending) if place == "tests" else set()
    problems = []
    for rule in rules:
        places = found.get(rule, [])
        name = rule.replace("-", "_")
        if not places and rule not in waiting:
            problems.append(f"{rule} is named nowhere in {place}/: {missing.format(rule=rule)}")
        elif len(places) > 1:
            problems.append(
                f"{rule} is named {len(places)} times in {place}/ ({', '.join(places)}): "
                + repeated.format(rule=rule, name=name)
            )
    return problems


def server_problems(
    outside: Counter[str], inside: Counter[str], rules: list[str], pending: Iterable[str] = ()
) -> list[str]:
    """Each rule named beside no server code, with what to write where. A pending rule may be
    named nowhere; named beside code, the server meets it and the list must say so."""
    write = REMEDY["reference_server"][0]
    found = beside_code(outside, inside, [rule for rule in rules if rule not in set(pending)])
    problems = [
        f"{rule} is named nowhere in reference_server/: {write}" for rule in found["missing"]
    ]
    problems += [
        f"{rule} is named in reference_server/ only in docstrings, away from the code: {write}"
        for rule in found["only in docstrings"]
    ]
    problems += [
        f"{rule} is named beside code in reference_server/ and listed as not met yet in "
        f"{PENDING_FILE}: the server meets it now, so remove it from that list"
        for rule in pending
        if outside[rule]
    ]
    return problems


def test_each_rule_is_named_once_in_the_step_layer() -> None:
    problems = thread_problems("steps", literal_places(ROOT / "steps", CATALOGUE), CATALOGUE)
    assert not problems, "\n".join(problems)


def test_each_rule_is_named_beside_the_server_code_that_decides_it() -> None:
    outside, inside = beside_code_counts(ROOT / "reference_server", CATALOGUE)
    problems = server_problems(outside, inside, CATALOGUE, PENDING)
    assert not problems, "\n".join(problems)


def test_each_rule_is_the_mark_of_one_test() -> None:
    found = marked_places(ROOT / "tests")
    problems = thread_problems("tests", found, CATALOGUE, PENDING)
    problems += [
        f"@pytest.mark.rule names {rule}, which features/rules.toml does not have "
        f"({', '.join(found[rule])}): correct the id or remove it"
        for rule in sorted(set(found) - set(CATALOGUE))
    ]
    assert not problems, "\n".join(problems)


def test_what_the_bundled_server_does_not_meet_yet_is_a_rule_with_a_reason() -> None:
    problems = [
        f"{PENDING_FILE} lists {rule}, which features/rules.toml does not have"
        for rule in PENDING
        if rule not in CATALOGUE
    ]
    problems += [
        f'{PENDING_FILE}: give {rule} its reason (RULE = "why the server does not meet it")'
        for rule, why in PENDING.items()
        if not (isinstance(why, str) and why.strip())
    ]
    assert not problems, "\n".join(problems)


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
    unchecked = [
        f"{rule} is named in no @check(...): write it in the @check of the Then step of its "
        "scenarios that decides it (steps/definitions/)"
        for rule in CATALOGUE
        if rule not in named
    ]
    astray = [
        f"{line}: that step is no Then step of the rule's scenarios (features/*.feature); name "
        "the rule on the Then step its scenarios use"
        for line in astray
    ]
    assert not unchecked + astray, "\n".join(unchecked + astray)
