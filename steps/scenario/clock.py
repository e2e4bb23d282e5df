"""Time as the scenarios see it: the target's test clock when the profile names one, real
waiting otherwise (only allowed when slow scenarios were asked for)."""

from __future__ import annotations

import time

import httpx
import pytest

from steps.http.layer import HttpLayer
from steps.profiles.profile import TargetProfile


class Clock:
    """Moves time forward and tells how much of it has passed, test clock included."""

    def __init__(self, profile: TargetProfile, http: HttpLayer, real_waits: bool) -> None:
        self.profile = profile
        self.http = http
        self.real_waits = real_waits
        self.offset = 0.0
        if self.has_test_clock:
            http.budget.resync = self.target_offset

    @property
    def has_test_clock(self) -> bool:
        """Whether the target lets the suite move its clock."""
        return self.profile.capabilities.test_clock is not None

    def now(self) -> float:
        """Seconds on the target's clock (its test clock: other xdist workers may move it)."""
        path = self.profile.capabilities.test_clock
        if path is not None:
            response = self.http.request("GET", self.profile.base_url + path, record=False)
            if response.status_code == 200:
                return float(response.json()["now"])
        return time.monotonic() + self.offset

    def target_offset(self) -> float | None:
        """How far the target's clock is ahead of the wall clock (None: cannot tell)."""
        path = self.profile.capabilities.test_clock
        if path is None:
            return None
        try:
            response = self.http.request("GET", self.profile.base_url + path, record=False)
            return float(response.json()["now"]) - time.time()
        except (OSError, ValueError, KeyError, TypeError, httpx.HTTPError):
            return None

    def advance(self, seconds: float) -> None:
        """Let `seconds` pass on the target: move its test clock, or wait for real."""
        path = self.profile.capabilities.test_clock
        if path is not None:
            response = self.http.request(
                "POST", self.profile.base_url + path, data={"advance": str(int(seconds))}
            )
            if response.status_code != 200:
                raise RuntimeError(f"the test clock refused to advance: {response.status_code}")
            self.offset += seconds
            self.http.budget.offset += seconds  # the target's minutes passed: so did its guard's
            return
        if not self.real_waits:
            pytest.skip("needs a test clock in the profile, or --run-slow to wait in real time")
        time.sleep(seconds)
