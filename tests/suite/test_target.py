"""The run's target builds its consent driver on first use (a manual driver asks a person), once,
and keeps a failure to build it as pytest keeps a session fixture's."""

from __future__ import annotations

import pytest

from steps.run.fixtures import BuiltOnFirstUse
from steps.scenario.target import Target


class Driver:
    closed = False

    def close(self) -> None:
        self.closed = True


def test_the_driver_is_built_on_first_use_and_once() -> None:
    built: list[Driver] = []

    def build() -> Driver:
        built.append(Driver())
        return built[-1]

    consent = BuiltOnFirstUse(build)  # type: ignore[arg-type]
    target = Target(None, None, None, None, consent)  # type: ignore[arg-type]
    assert built == []  # a target alone asks nobody
    assert target.driver is target.driver is built[0] and len(built) == 1
    consent.close()
    assert built[0].closed


def test_a_failure_to_build_it_is_kept() -> None:
    tries: list[int] = []

    def build() -> Driver:
        tries.append(1)
        raise ValueError("no such driver")

    consent = BuiltOnFirstUse(build)  # type: ignore[arg-type]
    for _ in range(2):
        with pytest.raises(ValueError, match="no such driver"):
            consent()
    assert len(tries) == 1
    consent.close()  # nothing built, nothing to close
