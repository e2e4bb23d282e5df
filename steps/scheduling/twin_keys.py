"""Which scenarios are twins: the same steps, word for word, up to their first check.

Twins set up the same state by the same requests (same step texts: the same functions with the
same arguments), so one run of those steps serves them all (steps/run/twins.py): what one twin's
checks then read is what each would have read after taking the steps itself. That holds while
the checks after the shared steps (the *tail*) only read: a twin whose tail does more (a further
request that changes a grant, or any step that is not a check) may use the shared state only
as its last user. Read from the step texts at collection, for the order of the run and for the
estimate of prompts (steps/run/approvals.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from steps.scheduling.writers import writes


@dataclass(frozen=True)
class Twin:
    """A scenario's shared steps (its *premise*: everything before its first check)."""

    #: The premise's step texts: twins have equal keys.
    key: tuple[str, ...]
    #: How many steps the premise has.
    size: int
    #: Whether the steps after it only check and change nothing (a twin that may share).
    pure: bool

    def tail(self, steps: Sequence[str]) -> tuple[str, ...]:
        """The steps after the premise."""
        return tuple(steps[self.size :])


def twin_of(steps: Sequence[str], types: Sequence[str]) -> Twin | None:
    """The scenario's twin key; None when it has no premise before a check."""
    first_check = next((i for i, kind in enumerate(types) if kind == "then"), None)
    if not first_check or len(types) != len(steps):
        return None
    tail, tail_types = steps[first_check:], types[first_check:]
    pure = all(kind == "then" for kind in tail_types) and not any(writes(s) for s in tail)
    return Twin(tuple(steps[:first_check]), first_check, pure)
