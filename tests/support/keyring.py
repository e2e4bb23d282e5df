"""A real Secret Service (dbus-daemon + gnome-keyring-daemon): skipped where it is missing,
unless CI requires it (MB_OAUTH_REQUIRE_KEYRING=1). The keyring twin of ``browser.py``.

``MB_OAUTH_GNOME_KEYRING`` and ``MB_OAUTH_DBUS_DAEMON`` name the daemons to run (default: the
ones on PATH), as ``MB_OAUTH_CHROMIUM`` names the browser; pointing one at a missing file shows
what a machine without it does.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import NoReturn

import pytest

REQUIRE = "MB_OAUTH_REQUIRE_KEYRING"


def unavailable(reason: str) -> NoReturn:
    """Skip, or fail where the keyring is required: the one place that decides."""
    if os.environ.get(REQUIRE) == "1":
        pytest.fail(f"{REQUIRE}=1 but {reason}")
    pytest.skip(reason)
    raise AssertionError  # unreachable: skip raises


def _program(variable: str, name: str) -> str | None:
    configured = os.environ.get(variable)
    if configured:
        return configured if Path(configured).is_file() else None
    return shutil.which(name)


def gnome_keyring_path() -> str | None:
    return _program("MB_OAUTH_GNOME_KEYRING", "gnome-keyring-daemon")


def required_secret_service() -> tuple[str, str]:
    """Paths of dbus-daemon and gnome-keyring-daemon; skip or fail when either is absent."""
    bus = _program("MB_OAUTH_DBUS_DAEMON", "dbus-daemon")
    daemon = gnome_keyring_path()
    found = {"dbus-daemon": bus, "gnome-keyring-daemon": daemon}
    missing = [name for name, path in found.items() if path is None]
    if missing:
        unavailable(f"{', '.join(missing)} not installed (apt-get install dbus gnome-keyring)")
    try:
        import secretstorage  # noqa: F401 - keyring's SecretService backend needs it
    except ImportError as exc:
        unavailable(f"keyring's SecretService backend is unavailable: {exc}")
    assert bus is not None and daemon is not None
    return bus, daemon
