"""Steps that let time pass (feature: token lifetime)."""

from __future__ import annotations

from pytest_bdd import parsers, when

from steps.clock import Clock


@when(parsers.re(r"(?P<seconds>\d+) (?:more )?seconds pass"))
def time_passes(clock: Clock, seconds: str) -> None:
    """Move the test clock, or wait for real (only with --run-slow)."""
    clock.advance(int(seconds))
