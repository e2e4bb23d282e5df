"""Fixtures shared by the suite's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.suite.target import Target, bundled_target


@pytest.fixture(scope="package")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    """One bundled target for the tests that only log in, approve and read pages (the consent
    drivers). A module whose tests change the target's state (throttling, setup errors, whole
    runs) defines its own `target`, which takes precedence."""
    with bundled_target(tmp_path_factory.mktemp("drivers")) as running:
        yield running
