"""A target that is throttling the suite when the run starts: the 429 and its Retry-After are
waited for, and the verdicts are those of a target that is not throttling."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.suite.broken.harness import run_conformance
from tests.suite.target import Target, bundled_target

pytestmark = pytest.mark.slow

RULES = ("TOKEN-CROSS-CLIENT-CODE", "REFRESH-CROSS-CLIENT", "PKCE-S256")
#: Seconds left in the guard's window when the run starts (what the run will have to wait).
LEFT = 25


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    with bundled_target(tmp_path_factory.mktemp("throttling"), guard_free=None) as running:
        yield running


def trip_the_guard(target: Target, role: str) -> int:
    """Fail as `role` until the server's guard refuses it, near the end of a guard window."""
    server = target.server
    now = httpx.get(server.url("/_test/clock"), verify=server.ssl_context()).json()["now"]
    server.advance_clock((60 - now % 60 - LEFT) % 60)  # the window now ends in LEFT seconds
    client = target.clients[role]
    wrong = {"token": "x", "client_id": client["client_id"], "client_secret": "wrong"}
    with httpx.Client(verify=server.ssl_context()) as http:
        for attempt in range(1, 30):
            if http.post(server.url("/oauth2/revoke"), data=wrong).status_code == 429:
                return attempt
    raise AssertionError("the guard never answered 429")


def test_a_throttling_target_is_waited_for(target: Target, tmp_path: Path) -> None:
    args = ["--profile", str(target.profile_path), *(f"--rule={rule}" for rule in RULES)]
    calm = run_conformance(args, tmp_path / "calm")
    assert calm.exit_code == 0, calm.summary()[-2000:]
    assert trip_the_guard(target, "other_web") > 1
    throttled = run_conformance(args, tmp_path / "throttled")
    assert throttled.exit_code == 0, throttled.output[-3000:]
    assert throttled.by_rule == calm.by_rule
    assert "preflight: the target throttled the suite: waited" in throttled.output
