"""Crash and restart (SIGKILL under load): what clients received survives, nothing is torn.

The load, the per-grant model and the audit live in tools/soak_lib/crash.py (the soak tool
runs the same check); here they run against a server of the test's own, twice in a row, and
the consistency queries are shown to catch the half-written states they look for.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from soak_lib.crash import crash_restart_check
from soak_lib.flows import provision

from reference_server.launcher import ServerProcess

from .helpers import CONSISTENCY, World, integrity_problems, read_db, refresh, tokens


def test_tokens_survive_sigkill_under_load(tmp_path: Path):
    """Two workers on one file, killed twice (tools/soak does it with one worker)."""
    server = ServerProcess(tmp_path / "data", test_clock=True, workers=2)
    try:
        server.start()
        setup = provision(server)
        for cycle, kill_after in enumerate((30, 60)):
            report = asyncio.run(
                crash_restart_check(server, setup, kill_after=kill_after, seed=10 * cycle)
            )
            assert report.ok, report.summary()
            assert report.grants > 0 and report.tokens_checked > 0, report.summary()
    finally:
        server.stop()


def test_consistency_checks_catch_half_written_state(site: World, tmp_path: Path):
    """Every invariant query must be able to fail: break copies of a real database each way."""
    with site.http() as http:
        browser = site.agent()
        held = tokens(http, browser, site.installed)
        assert refresh(http, site.installed, held["refresh_token"]).status_code == 200
        browser.close()
    original = site.database
    assert integrity_problems(original) == []
    breakages = {
        "code marked redeemed without its grant": "UPDATE codes SET grant_id = NULL"
        " WHERE code_hash = (SELECT MIN(code_hash) FROM codes WHERE grant_id IS NOT NULL)",
        "code tied to a grant but not marked redeemed": "UPDATE codes SET redeemed_at = NULL"
        " WHERE code_hash = (SELECT MIN(code_hash) FROM codes WHERE grant_id IS NOT NULL)",
        "grant not created by exactly one code": "INSERT INTO grants (application_id,"
        " user_id, scope, created_at) SELECT application_id, user_id, scope, 0 FROM grants"
        " LIMIT 1",
        "grant without any access token": "DELETE FROM access_tokens WHERE grant_id ="
        " (SELECT MIN(id) FROM grants)",
        "access token without its grant": "UPDATE access_tokens SET grant_id = 999999"
        " WHERE token_hash = (SELECT MIN(token_hash) FROM access_tokens)",
        "unrevoked access token of a revoked grant": "UPDATE grants SET revoked_at = 1"
        " WHERE id = (SELECT grant_id FROM access_tokens WHERE revoked_at IS NULL LIMIT 1)",
        "grant with more than one unrevoked access token": "UPDATE access_tokens SET"
        " revoked_at = NULL",
    }
    assert set(breakages) == set(CONSISTENCY)
    for what, sql in breakages.items():
        copy = tmp_path / f"broken-{len(what)}.sqlite3"
        with read_db(original) as source, read_db(copy, readonly=False) as db:
            source.backup(db)
            db.execute(sql)
            db.commit()
        problems = integrity_problems(copy, readonly=False)
        assert any(what in p for p in problems), (what, problems)
