"""Why a scenario did not reach the check it stands for.

A step raises `NotChecked` when the premise of its scenario could not be established (a scope
refused, no refresh token, the consent page not reached, the target throttling the suite).
The plugin records such a scenario with the outcome `unchecked`, and `verdicts.decide` turns it
into the verdict "could not be checked", never "fail": a setup failure says nothing about the
rule the scenario is about. Any exception raised by a Given step is read the same way. A premise
that does not hold (`PremiseFailed`, `require`) names the rule whose check judges the defect.
Every layer of the suite raises these, so they live at its bottom.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import pytest

#: Scenario outcome of a scenario whose premise failed (beside passed, failed, skipped).
UNCHECKED_OUTCOME = "unchecked"
T = TypeVar("T")


class NotChecked(Exception):
    """The scenario's premise could not be established, so its rule was not checked."""

    def __init__(self, reason: str, *, cause: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        #: The earlier failure this one follows from (a cascade), when known.
        self.cause = cause


class PremiseFailed(NotChecked):
    """A premise did not hold; `see` is the rule whose check judges what went wrong."""

    def __init__(self, what: str, *, see: str, cause: str = "") -> None:
        super().__init__(f"{what}, see {see}" if see else what, cause=cause)
        self.what = what
        self.see = see


def require(holds: object, what: str, *, see: str) -> None:
    """Go on when the premise holds; otherwise the scenario could not be checked."""
    if not holds:
        raise PremiseFailed(what, see=see)


class Throttled(NotChecked):
    """The target answered 429 (or 503 with Retry-After) longer than the suite may wait."""

    def __init__(self, reason: str, *, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class Cascade:
    """The first failure of a shared premise (a shared grant, the login), remembered so the
    scenarios that need it later are "could not be checked" with that failure named as their
    cause, instead of trying again (against a live service, again and again)."""

    def __init__(self) -> None:
        self._first: dict[str, NotChecked] = {}
        #: The scenario running now (the plugin sets it), named as the cause of a cascade.
        self.current = ""

    def run(self, key: str, build: Callable[[], T]) -> T:
        """`build()`, unless it already failed for `key`: then NotChecked naming the first
        failure. A throttled answer is not remembered (waiting may help)."""
        first = self._first.get(key)
        if first is not None:
            raise NotChecked(first.reason, cause=first.cause)
        try:
            return build()
        except Throttled:
            raise
        except NotChecked as error:
            self._remember(key, error.reason, error.cause)
            raise
        except Exception as error:
            self._remember(key, f"{type(error).__name__}: {error}", "")
            raise

    def _remember(self, key: str, reason: str, cause: str) -> None:
        where = cause or (f"{self.current}: {reason}" if self.current else reason)
        self._first[key] = NotChecked(reason, cause=where)


#: Where a run keeps its cascade memory (config.stash: one per process, so each pytest-xdist
#: worker has its own).
CASCADE_KEY = pytest.StashKey[Cascade]()


def cascade_of(config: pytest.Config) -> Cascade:
    """The run's cascade memory."""
    if CASCADE_KEY not in config.stash:
        config.stash[CASCADE_KEY] = Cascade()
    return config.stash[CASCADE_KEY]
