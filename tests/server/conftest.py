"""Fixtures of the server tests beyond the session's shared server (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reference_server.launcher import ServerProcess


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server without a test clock, one per module, which its tests may restart."""
    server = ServerProcess(tmp_path_factory.mktemp("own") / "data")
    server.start()
    yield server
    server.stop()
