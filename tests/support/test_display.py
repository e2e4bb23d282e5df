"""Missing GUI parts skip a newcomer's test and fail CI's: Tk is checked on its own, since
Debian's python3 comes without it even where Xvfb is installed."""

from __future__ import annotations

import importlib.util

import pytest

from tests.support import display


@pytest.fixture
def no_tkinter(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "tkinter" else real(name, *a)
    )


def test_missing_tkinter_skips_where_the_display_is_not_required(no_tkinter, monkeypatch):
    monkeypatch.delenv("MB_OAUTH_REQUIRE_DISPLAY", raising=False)
    with pytest.raises(pytest.skip.Exception, match="python3-tk"):
        display.require_tkinter()


def test_missing_tkinter_fails_where_the_display_is_required(no_tkinter, monkeypatch):
    monkeypatch.setenv("MB_OAUTH_REQUIRE_DISPLAY", "1")
    with pytest.raises(pytest.fail.Exception, match=r"REQUIRE_DISPLAY=1 but .* no tkinter"):
        display.require_tkinter()
