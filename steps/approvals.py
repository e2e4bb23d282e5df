"""How many times a run sends the user through the consent page, from the step definitions'
own metadata: a step that takes the user there says so with `@visits_consent(...)`, and the
estimate counts the steps of the selected scenarios (the manual driver announces it)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from typing import TypeVar

from steps.bdd_registry import step_definitions

F = TypeVar("F", bound=Callable[..., object])
ATTRIBUTE = "consent_visits"


class Visits(Enum):
    """How a step's consent-page visits add up over a run."""

    #: Once each time the step runs.
    EACH = "each"
    #: Once per distinct arguments in the whole run (a grant shared by reader scenarios).
    SHARED = "shared"


#: How a step visits: always the same way, or decided by the step's arguments.
VisitRule = Visits | Callable[..., Visits]


def visits_consent(visits: VisitRule) -> Callable[[F], F]:
    """Mark a step function as one that sends the user through the consent page (`visits`
    may be a function of the step's arguments, e.g. a fresh grant or a shared one)."""

    def mark(function: F) -> F:
        setattr(function, ATTRIBUTE, visits)
        return function

    return mark


def estimate_approvals(scenarios: Iterable[Sequence[str]]) -> int:
    """Consent-page visits a run needs: one per visiting step, one per distinct shared grant.
    `scenarios` gives each selected scenario's step texts."""
    match = _matcher()
    visits = 0
    shared: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    for steps in scenarios:
        for text in steps:
            found = match(text)
            if found is None:
                continue
            kind, key = found
            if kind is Visits.EACH:
                visits += 1
            else:
                shared.add(key)
    return visits + len(shared)


def _matcher() -> Callable[[str], tuple[Visits, tuple[str, tuple[tuple[str, str], ...]]] | None]:
    """Step text -> (how it visits, the shared key) for the marked step definitions."""
    marked = [
        (parser, visits, getattr(function, "__name__", "?"))
        for parser, function in step_definitions()
        if (visits := getattr(function, ATTRIBUTE, None)) is not None
    ]

    @functools.cache
    def match(text: str) -> tuple[Visits, tuple[str, tuple[tuple[str, str], ...]]] | None:
        for parser, visits, name in marked:
            if parser.is_matching(text):
                arguments = parser.parse_arguments(text) or {}
                key = tuple(sorted((k, str(v)) for k, v in arguments.items()))
                kind = visits if isinstance(visits, Visits) else visits(**arguments)
                return kind, (name, key)
        return None

    return match
