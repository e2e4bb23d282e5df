"""How many times a run asks a person (the manual driver's "prompt n of about N"), from the step
definitions' own metadata and the run's order.

A step that sends the user to the authorization page (or to the website) says so with
`@visits_consent(rule)` (steps/scenario/visits.py); the rule, given the step's arguments and the
scenario's step texts, says how that visit adds up (`Visits`). The estimate then walks the
scenarios in the order they run, as the run itself shares: grants shared by readers within an
isolation epoch, taken over by the first writer that needs a grant of its own
(GrantCache.take), and twins that replay another twin's premise (steps/run/twins.py) counting
only the visits after it. It assumes a conforming target: the control requests a check makes
before it fails (steps/scenario/controls.py) are not counted.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from steps.run.bdd_registry import step_definitions
from steps.scenario.visits import ATTRIBUTE, Visit, Visits
from steps.scheduling.twin_keys import twin_of
from steps.scheduling.writers import is_writer


@dataclass
class _Run:
    """What the estimate keeps while it walks the run."""

    epoch: int = 0
    prompts: int = 0
    shared: dict[tuple[object, ...], int] = field(default_factory=dict)
    recorded: dict[tuple[str, ...], int] = field(default_factory=dict)
    used: set[tuple[str, ...]] = field(default_factory=set)

    def visit(self, visit: Visit, writer: bool) -> None:
        if visit.kind is Visits.EACH:
            self.prompts += 1
        elif visit.kind is Visits.SHARED and not writer:
            if self.shared.get(visit.key) != self.epoch:
                self.prompts += 1
                self.shared[visit.key] = self.epoch
        elif visit.kind is not Visits.NONE:  # a grant of a writer's own, or FRESH for a reader
            if writer and self.shared.get(visit.key) == self.epoch:
                del self.shared[visit.key]
            else:
                self.prompts += 1


def estimate_prompts(
    scenarios: Iterable[tuple[Sequence[str], Sequence[str]]], *, pages: bool = False
) -> int:
    """Prompts a run asks: `scenarios` gives each scenario's step texts and keyword types, in
    the order they run; `pages` says whether the driver reads the service's pages."""
    match = _matcher()
    run = _Run()
    for steps, types in scenarios:
        twin = twin_of(steps, types)
        writer = is_writer(steps)
        replays = twin is not None and run.recorded.get(twin.key) == run.epoch
        replays = replays and twin is not None and twin.key not in run.used
        counted = twin.tail(steps) if replays and twin is not None else tuple(steps)
        for text in counted:
            if (visit := match(text, tuple(steps), pages)) is not None:
                run.visit(visit, writer)
        ends = writer
        if twin is not None and replays:
            ends = is_writer(twin.tail(steps))
            if not twin.pure:
                run.used.add(twin.key)
        elif twin is not None and twin.pure:
            run.recorded[twin.key] = run.epoch + (1 if writer else 0)
            run.used.discard(twin.key)
        run.epoch += 1 if ends else 0
    return run.prompts


def _matcher() -> Callable[[str, tuple[str, ...], bool], Visit | None]:
    """Step text (with the scenario's steps) -> how it visits, for the marked steps."""
    marked = [
        (parser, visits)
        for parser, function in step_definitions()
        if (visits := getattr(function, ATTRIBUTE, None)) is not None
    ]

    @functools.cache
    def match(text: str, steps: tuple[str, ...], pages: bool) -> Visit | None:
        for parser, visits in marked:
            if parser.is_matching(text):
                if isinstance(visits, Visits):
                    return Visit(visits)
                arguments = parser.parse_arguments(text) or {}
                found = visits(**arguments, steps=steps, pages=pages)
                return found if isinstance(found, Visit) else Visit(found)
        return None

    return match
