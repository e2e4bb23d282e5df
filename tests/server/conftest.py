"""Fixtures of the server tests beyond the session's shared server (tests/conftest.py), and
those of the protocol core without HTTP (`core` on a copy of `core_template`: core.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reference_server.launcher import ServerProcess

from .core import core, core_template

__all__ = ["core", "core_template", "own_server"]


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server without a test clock, one per module, which its tests may restart."""
    server = ServerProcess(tmp_path_factory.mktemp("own") / "data")
    server.start()
    yield server
    server.stop()
