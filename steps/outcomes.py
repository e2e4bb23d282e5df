"""Why a scenario did not reach the check it stands for.

A step raises `NotChecked` when the premise of its scenario could not be established (a scope
refused, no refresh token, the consent page not reached, the target throttling the suite).
The plugin records such a scenario with the outcome `unchecked`, and `verdicts.decide` turns it
into the verdict "could not be checked", never "fail": a setup failure says nothing about the
rule the scenario is about. Any exception raised by a Given step is read the same way.
"""

from __future__ import annotations

#: Scenario outcome of a scenario whose premise failed (beside passed, failed, skipped).
UNCHECKED_OUTCOME = "unchecked"


class NotChecked(Exception):
    """The scenario's premise could not be established, so its rule was not checked."""

    def __init__(self, reason: str, *, cause: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        #: The earlier failure this one follows from (a cascade), when known.
        self.cause = cause


class Throttled(NotChecked):
    """The target answered 429 (or 503 with Retry-After) longer than the suite may wait."""

    def __init__(self, reason: str, *, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after
