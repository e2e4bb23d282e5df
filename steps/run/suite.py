"""Run-wide state of the suite, kept on the pytest config so the plugin (results, evidence)
and the fixtures (requests) see the same HTTP layer and observations."""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from steps.http.layer import HttpLayer
from steps.http.throttle import DEFAULT_FAILURES_PER_MINUTE
from steps.profiles.profile import TargetProfile, load_profile
from steps.rules.catalogue import Rule, load_catalogue
from steps.scenario.observations import Observations

STATE_KEY = pytest.StashKey["SuiteState"]()


@dataclass
class SuiteState:
    """The profile, catalogue and the lazily built HTTP layer of a run."""

    profile: TargetProfile | None
    catalogue: dict[str, Rule]
    observations: Observations = field(default_factory=Observations)
    #: Prompts a person will be asked (steps/run/approvals.py), for the driver the run uses.
    approvals_estimate: int | None = None
    #: The running scenarios' steps and keyword types, in run order (for that estimate).
    run_shapes: list[tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)
    #: The running scenario's rules, as a prompt of the manual driver names them.
    serving: str = ""
    #: The consent driver once the run built it (its `stats`, if any, reach the reports).
    consent_driver: Any = None
    #: --combinations: "pairs" (rows tagged @product left out) or "product".
    combinations: str = "pairs"
    #: Scenario rows beyond all-pairs this run left out (0 with --combinations product).
    product_rows_not_run: int = 0
    _http: HttpLayer | None = None

    def http(self) -> HttpLayer:
        """The HTTP layer, created on first use (no connection before a scenario needs one)."""
        if self._http is None:
            assert self.profile is not None
            self._http = http_layer(self.profile)
        return self._http

    @property
    def http_started(self) -> bool:
        """Whether any scenario has used HTTP yet."""
        return self._http is not None

    def close(self) -> None:
        """Close connections."""
        if self._http is not None:
            self._http.close()


#: The endpoints whose answers are small JSON documents (read within the smaller bound).
ANSWER_ENDPOINTS = ("token", "revoke", "userinfo")


def http_layer(profile: TargetProfile) -> HttpLayer:
    """The HTTP layer for a profile: its CA, pacing and failure budget, and the paths of its
    endpoints whose answers are small."""
    return HttpLayer(
        profile.ca_file,
        profile.min_interval,
        target=profile.base_url,
        failures_per_minute=failures_per_minute(profile),
        answer_paths=[urlsplit(profile.url(name)).path for name in ANSWER_ENDPOINTS],
    )


def failures_per_minute(profile: TargetProfile) -> int:
    """The profile's `failures_per_minute` (pacing of deliberate failures; 0 turns it off)."""
    if profile.source is None:
        return DEFAULT_FAILURES_PER_MINUTE
    try:
        with Path(profile.source).open("rb") as handle:
            value = tomllib.load(handle).get("failures_per_minute", DEFAULT_FAILURES_PER_MINUTE)
    except (OSError, tomllib.TOMLDecodeError):
        return DEFAULT_FAILURES_PER_MINUTE
    return int(value) if isinstance(value, int | float) else DEFAULT_FAILURES_PER_MINUTE


def build_state(config: pytest.Config) -> SuiteState:
    """Read the profile (with command-line overrides) and the catalogue."""
    path = config.getoption("profile")
    profile = None
    if path:
        profile = load_profile(
            path, target=config.getoption("target"), min_interval=config.getoption("min_interval")
        )
    return SuiteState(profile=profile, catalogue=load_catalogue())


def suite_state(config: pytest.Config) -> SuiteState:
    """The run's state (built by the plugin at configure time)."""
    return config.stash[STATE_KEY]


def driver_stats(driver: Any) -> dict[str, Any]:
    """The consent driver's counters (`driver.stats`: a mapping or a dataclass), e.g. how many
    times a person was asked; {} when the driver keeps none."""
    stats = getattr(driver, "stats", None)
    if stats is None:
        return {}
    if dataclasses.is_dataclass(stats) and not isinstance(stats, type):
        stats = dataclasses.asdict(stats)
    if not isinstance(stats, Mapping):
        return {}
    return {str(k): v for k, v in stats.items() if isinstance(v, int | float | str | bool)}
