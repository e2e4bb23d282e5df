"""The two kinds of step: a *premise* sets a scenario up, a *check* states its rule.

A scenario stands for one rule (or a few), and only the step that states that rule may fail
it. Everything before that point is a premise: a code issued to the installed application, a
grant to start from, a refresh that yields a token, an access token that still works. A
premise reads the service's answers as leniently as a real client library would
(steps/http/readers.py: a token in JSON or form encoding; "works" means the endpoint accepted the
token, whatever the shape of its answer). When it cannot be established, the scenario "could
not be checked: <what>, see <the rule that covers it>", never fails: the defect that broke the
premise is that other rule's business, and its own check fails on it. One defect, one verdict.

A check is strict: it reads the answer as the rule's words demand, and its failure is the
scenario's verdict. It is made on every variant the rule's words cover (client type, grant
kind, token delivery, error kind: `variants` in features/rules.toml, held to the scenarios by
tests/suite/test_variants.py).

Every step definition says which kind it is, `@premise(see=...)` or `@check(...)`, and the
features keep to it: Given and When steps are premises, Then steps checks
(tests/suite/test_step_kinds.py). A check names the rules it states: each rule's id is written
in the step layer once, in the `@check` of the Then step that decides it (its other Then steps,
if any, and the premises name it as `RULE.<ID>`: steps/rules/ids.py), so that searching a
rule's id finds its check (tests/test_rule_thread.py).
Twins (scenarios with the same premise, steps/run/twins.py) take their premise once: while a twin
replays it (`replay_of(config)`), its premise steps are not run.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
import pytest

from steps.outcomes import NotChecked, PremiseFailed
from steps.rules.ids import RULE

F = TypeVar("F", bound=Callable[..., Any])
KIND = "step_kind"
RULES = "checked_rules"
PREMISE, CHECK = "premise", "check"
TOUCHES = "touched_objects"
#: Who names the rule behind a premise: a rule id, or a function of the step's arguments.
See = str | Callable[..., str]
#: The objects a step touches (features/dimensions.toml): fixed, or a function of its arguments.
Touches = tuple[str, ...] | Callable[..., tuple[str, ...]]


class Replay:
    """Whether the running scenario replays a twin's premise (steps/run/twins.py): its premise
    steps are then not run; the state they led to is restored instead. One per run, in
    config.stash (`replay_of`)."""

    active = False


REPLAY_KEY = pytest.StashKey[Replay]()


def replay_of(config: pytest.Config) -> Replay:
    """The run's replay switch."""
    if REPLAY_KEY not in config.stash:
        config.stash[REPLAY_KEY] = Replay()
    return config.stash[REPLAY_KEY]


def _with_request(function: Callable[..., Any]) -> inspect.Signature:
    """The step function's signature with pytest's `request` fixture added, so the premise's
    wrapper reaches the run's state (config.stash) whatever the step asks for."""
    signature = inspect.signature(function)
    if "request" in signature.parameters:
        return signature
    request = inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    parameters = list(signature.parameters.values())
    first_default = next((i for i, p in enumerate(parameters) if p.default is not p.empty), None)
    at = len(parameters) if first_default is None else first_default
    return signature.replace(parameters=[*parameters[:at], request, *parameters[at:]])


def premise(see: See = "", touches: Touches = ()) -> Callable[[F], F]:
    """Mark a step as a premise: an assertion or transport error in it makes the scenario
    "could not be checked", naming `see` (a NotChecked raised inside keeps its own reason).
    `touches`: the objects of features/dimensions.toml the request it sends is made of (a
    When step's act: the rules it serves vary their dimensions, tests/suite/test_variants.py)."""

    def mark(function: F) -> F:
        wants_request = "request" in inspect.signature(function).parameters

        @functools.wraps(function)
        def step(*args: Any, **kwargs: Any) -> Any:
            request = kwargs["request"] if wants_request else kwargs.pop("request")
            if replay_of(request.config).active:
                return None  # a twin's premise: its product is restored after the last step
            try:
                return function(*args, **kwargs)
            except NotChecked:
                raise
            except (AssertionError, httpx.HTTPError) as error:
                rule = see(**kwargs) if callable(see) else see
                raise PremiseFailed(str(error) or type(error).__name__, see=rule) from error

        setattr(step, KIND, PREMISE)
        setattr(step, TOUCHES, touches)
        step.__signature__ = _with_request(function)  # type: ignore[attr-defined]
        return step  # type: ignore[return-value]

    return mark


def check(*rules: str, touches: Touches = ()) -> Callable[[F], F]:
    """Mark a step as a check: strict, and its failure is the scenario's verdict. `rules`: the
    rules whose check this step states (ids of features/rules.toml; a rule is named on one
    step only, the one that decides it; a step that only completes another's check names none).
    `touches`: the objects of features/dimensions.toml the check presents or reads (a token it
    presents, the answer it reads), whose dimensions the scenario's rules vary.
    """
    unknown = [rule for rule in rules if rule not in RULE]
    if unknown:
        raise ValueError(f"not rules of features/rules.toml: {', '.join(unknown)}")

    def mark(function: F) -> F:
        setattr(function, KIND, CHECK)
        setattr(function, RULES, rules)
        setattr(function, TOUCHES, touches)
        return function

    return mark


def kind_of(function: Callable[..., Any]) -> str:
    """PREMISE, CHECK, or "" for a step definition that says neither."""
    return str(getattr(function, KIND, ""))


def rules_checked_by(function: Callable[..., Any]) -> tuple[str, ...]:
    """The rules whose check a step definition states (see `check`)."""
    return tuple(getattr(function, RULES, ()))


def touches_of(function: Callable[..., Any], arguments: dict[str, Any]) -> tuple[str, ...]:
    """The objects a step touches, given the arguments its text parses to."""
    touches = getattr(function, TOUCHES, ())
    if callable(touches):
        names = touches.__code__.co_varnames[: touches.__code__.co_argcount]
        return tuple(touches(**{name: arguments.get(name) for name in names}))
    return tuple(touches)
