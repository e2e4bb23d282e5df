"""Time as the scenarios see it: the target's test clock when the profile names one, real
waiting otherwise (only allowed when slow scenarios were asked for)."""

from __future__ import annotations

import time

import pytest

from steps.http import HttpLayer
from steps.profile import Profile


class Clock:
    """Moves time forward and tells how much of it has passed, test clock included."""

    def __init__(self, profile: Profile, http: HttpLayer, real_waits: bool) -> None:
        self.profile = profile
        self.http = http
        self.real_waits = real_waits
        self.offset = 0.0

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
            return
        if not self.real_waits:
            pytest.skip("needs a test clock in the profile, or --run-slow to wait in real time")
        time.sleep(seconds)
