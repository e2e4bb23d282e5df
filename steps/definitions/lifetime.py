"""Steps that let time pass (feature: token lifetime)."""

from __future__ import annotations

from pytest_bdd import parsers, when

from steps.rules.ids import RULE
from steps.scenario.clock import Clock
from steps.scenario.kinds import premise
from steps.scenario.scene import Scene

#: Spec 2.3, 8: an access token lives 3600 seconds.
ACCESS_TOKEN_LIFETIME = 3600


@when(parsers.re(r"(?P<seconds>\d+) (?:more )?seconds pass"))
@premise()
def time_passes(clock: Clock, scene: Scene, seconds: str) -> None:
    """Move the test clock, or wait for real (only with --run-slow). Past the access token's
    lifetime, RULE.LIFETIME_ACCESS_EXPIRES requires it to be refused."""
    clock.advance(int(seconds))
    scene.clock_moved = True
    if int(seconds) > ACCESS_TOKEN_LIFETIME:
        scene.refusal_rule = RULE.LIFETIME_ACCESS_EXPIRES
