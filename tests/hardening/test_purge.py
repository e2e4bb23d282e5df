"""No unbounded growth: no row per anonymous visit; ended rows purged.

The purge runs in the background of the server (every 0.3 s here); the test moves the test
clock past every lifetime and waits, boundedly, for the rows to go, while live data stays.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference_server.launcher import ServerProcess

from .helpers import (
    World,
    get_code,
    integrity_problems,
    provision,
    read_db,
    refresh,
    revoke,
    tokens,
)

WAIT = 20.0  # a bound on waiting for the background purge, not a measure


def test_anonymous_visits_of_the_login_page_create_no_session_rows(site: World):
    before = site.count("SELECT COUNT(*) FROM sessions")
    with site.http() as http:
        for _ in range(50):
            http.cookies.clear()
            assert http.get("/login").status_code == 200
    assert site.count("SELECT COUNT(*) FROM sessions") == before


@pytest.fixture(scope="module")
def purging(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    data_dir = tmp_path_factory.mktemp("purge") / "data"
    extra = ("--purge-interval", "0.3")
    with ServerProcess(data_dir, test_clock=True, extra_args=extra) as running:
        made = provision(running)
        yield made
        made.close()


def _counts(database: Path) -> dict[str, int]:
    queries = {
        "sessions": "SELECT COUNT(*) FROM sessions",
        "unused codes": "SELECT COUNT(*) FROM codes WHERE redeemed_at IS NULL",
        "grants": "SELECT COUNT(*) FROM grants",
        "access tokens": "SELECT COUNT(*) FROM access_tokens",
        "form tokens": "SELECT COUNT(*) FROM form_tokens",
    }
    with read_db(database) as db:
        return {name: int(db.execute(sql).fetchone()[0]) for name, sql in queries.items()}


def test_ended_rows_are_purged_in_the_background_and_live_ones_stay(purging: World):
    site = purging
    agent = site.agent()
    with site.http() as http:
        kept = tokens(http, agent, site.installed)  # an offline grant that stays live
        for _ in range(2):  # each refresh leaves the previous access token revoked
            renewed = refresh(http, site.installed, kept["refresh_token"])
            assert renewed.status_code == 200
        ended = tokens(http, agent, site.installed)
        assert revoke(http, site.installed, ended["refresh_token"]).status_code == 200
        tokens(http, agent, site.web)  # an online grant: ends with its access token
        get_code(agent, site.web)  # a code never exchanged
        before = _counts(site.database)
        assert before["grants"] == 3 and before["access tokens"] == 5 and before["sessions"] >= 1
        http.post("/_test/clock", data={"advance": str(15 * 86400)})
        deadline, after = time.monotonic() + WAIT, before
        expected = {
            "sessions": 0,
            "unused codes": 0,
            "grants": 1,
            "access tokens": 1,
            "form tokens": 0,
        }
        while time.monotonic() < deadline and after != expected:
            time.sleep(0.2)
            after = _counts(site.database)
        assert after == expected, (before, after)
        assert integrity_problems(site.database) == []
        # The live grant still works: its refresh token was never touched.
        assert refresh(http, site.installed, kept["refresh_token"]).status_code == 200
    agent.close()


def test_an_operator_can_purge_from_the_command_line(purging: World):
    """`mb-oauth-server purge`: one round now, for a cron job or a server that is down."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "reference_server",
            "purge",
            "--data-dir",
            str(purging.server.data_dir),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Removed"), done.stdout
