"""What the user's visit to the authorization page (or to the website) costs a person.

A step that sends the user there says so with `@visits_consent(rule)`; the rule, given the
step's arguments and the scenario's step texts, says how that visit adds up over a run
(`Visits`). The estimate of prompts (steps/run/approvals.py) reads these marks from the step
definitions; the rules below say, for the user's decision (steps/definitions/decision.py), when
a visit asks nobody (a request refused before any login) and when a driver that reads no pages
may skip one."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TypeVar

F = TypeVar("F", bound=Callable[..., object])
ATTRIBUTE = "consent_visits"


class Visits(Enum):
    """How a step's visits add up over a run."""

    #: A visit each time the step runs.
    EACH = "each"
    #: The shared grant of its epoch: one visit per epoch for readers (a writer's own grant).
    SHARED = "shared"
    #: A grant of the scenario's own: one visit, unless a writer takes the epoch's shared one.
    FRESH = "fresh"
    #: No person is asked (the service refuses before any login, or the check cannot be made).
    NONE = "none"


@dataclass(frozen=True)
class Visit:
    """How one step visits, and the shared grant it stands for (SHARED and FRESH)."""

    kind: Visits
    key: tuple[object, ...] = field(default=())


#: How a step visits: always the same way, or decided by the step's arguments, with `steps=`
#: the scenario's step texts and `pages=` whether the driver reads the service's pages.
VisitRule = Visits | Callable[..., Visit | Visits]


def visits_consent(visits: VisitRule) -> Callable[[F], F]:
    """Mark a step function as one that sends the user to the authorization page or the
    website (`visits` may be a function of the step's arguments and of the scenario)."""

    def mark(function: F) -> F:
        setattr(function, ATTRIBUTE, visits)
        return function

    return mark


#: What a scenario expects when the service must refuse its request before anyone logs in (the
#: request itself is wrong), as the estimate of prompts reads it (steps/run/approvals.py).
PRE_LOGIN_REFUSAL = re.compile(
    r"^the service shows an error page without sending the user back$"
    r'|^the application receives the error "(?!access_denied")'
    r'|^the request is refused as "'
    r"|^the error redirect carries the state "
    r"|^the request leaves out the (?:response_type|scope) parameter$"
)
#: Checks that read the headers of a page only the logged-in user sees
#: (steps/definitions/framing.py).
PAGE_CHECKS = ("the consent page forbids framing",)


def needs_pages(steps: tuple[str, ...]) -> bool:
    """Whether a scenario checks a page the driver must read itself (a manual one cannot)."""
    return any(step in PAGE_CHECKS for step in steps)


def act_visit(act: str, steps: tuple[str, ...], pages: bool, **_: object) -> Visits:
    """A refusal is asked of a person; a request the scenario expects the service to refuse
    before anyone logs in is not (the manual driver's look without a session takes it); nor is a
    visit whose page a driver that cannot read pages could not judge."""
    if not act.startswith("denies") and any(PRE_LOGIN_REFUSAL.search(s) for s in steps):
        return Visits.NONE
    if not pages and needs_pages(steps):
        return Visits.NONE
    return Visits.EACH
