"""What the user's visit to the authorization page costs a person, read from the scenario: the
rule of `@visits_consent` on the visiting step (steps/definitions/decision.py) for the estimate of
prompts (steps/run/approvals.py), and whether a driver that reads no pages may skip a visit."""

from __future__ import annotations

import re

from steps.run.approvals import Visits

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
