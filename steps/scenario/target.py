"""The target as every scenario of a run reaches it: the profile that describes it, its
endpoints (`Service`), the user's consent (the driver), its clock, and what the run observes of
it. One per run (fixture `target`, steps/run/fixtures.py); what a scenario owns is its `Scene`.

The consent driver is built on first use, not with the target: a manual driver asks a person,
and a run whose scenarios send nobody to the authorization page asks nobody."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from steps.consent.base import ConsentDriver
from steps.http.layer import HttpLayer
from steps.profiles.profile import TargetProfile
from steps.scenario.clock import Clock
from steps.scenario.observations import Observations
from steps.scenario.service import Service


@dataclass(frozen=True)
class Target:
    """The deployment under test and the run's means to reach it."""

    profile: TargetProfile
    service: Service
    clock: Clock
    observations: Observations
    #: The consent driver: built on the first call, the same one after it.
    consent: Callable[[], ConsentDriver]
    #: Whether the service accepts an authorization request of a shape (the positive twin of
    #: a request with one fault): asked once per run, since each visit may ask a person.
    accepted_requests: dict[tuple[object, ...], bool] = field(default_factory=dict)

    @property
    def driver(self) -> ConsentDriver:
        """The consent driver (built on first use)."""
        return self.consent()

    @property
    def http(self) -> HttpLayer:
        """The recording HTTP layer every request goes through."""
        return self.service.http
