"""Races between requests on two server worker processes sharing one SQLite file.

Each race starts its requests together (a barrier), each on its own TLS connection so both
workers take part. Whatever the interleaving: one code gives one token set, concurrent
refreshes leave exactly one valid access token, a revocation wins over refreshes racing it,
and the database never reports itself locked.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from reference_server.launcher import ServerProcess
from tests.support.user_agent import UserAgent, find_form

from .helpers import (
    App,
    World,
    align_to_window,
    authorize_params,
    exchange,
    get_code,
    integrity_problems,
    log_problems,
    provision,
    refresh,
    revoke,
    session_csrf,
    tokens,
    works,
)


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    data_dir = tmp_path_factory.mktemp("races") / "data"
    with ServerProcess(data_dir, test_clock=True, workers=2) as running:
        provisioned = provision(running)
        yield provisioned
        provisioned.close()


@pytest.fixture
def browser(two_workers: World) -> Iterator[UserAgent]:
    agent = two_workers.agent()
    yield agent
    agent.close()


@pytest.fixture
def http(two_workers: World) -> Iterator[httpx.Client]:
    with two_workers.http() as client:
        yield client


def race(site: World, calls: list[Callable[[httpx.Client], httpx.Response]]) -> list:
    """Run the calls at once, one fresh connection each; their responses, in order."""
    barrier = threading.Barrier(len(calls))
    context = site.server.ssl_context()

    def run(call: Callable[[httpx.Client], httpx.Response]) -> httpx.Response:
        with httpx.Client(base_url=site.server.base_url, verify=context, timeout=30) as c:
            c.get("/static/site.css")  # connect and handshake before the start line
            barrier.wait()
            return call(c)

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


def _statuses(answers: list[httpx.Response]) -> list[int]:
    return sorted(a.status_code for a in answers)


def _no_server_errors(site: World, answers: list[httpx.Response]) -> None:
    assert all(a.status_code < 500 for a in answers), _statuses(answers)
    problems = log_problems(site.log_path.read_text(errors="replace"))
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("kind", ["confidential", "public"])
def test_fifty_concurrent_redemptions_of_one_code_give_one_token_set(
    two_workers: World, browser: UserAgent, http: httpx.Client, kind: str
):
    app = two_workers.new_app(kind)  # its failures must not lock out other tests' clients
    code = get_code(browser, app, offline=True)
    answers = race(two_workers, [lambda c: exchange(c, app, code)] * 50)
    _no_server_errors(two_workers, answers)
    winners = [a for a in answers if a.status_code == 200]
    assert len(winners) == 1, _statuses(answers)
    for loser in answers:
        if loser.status_code != 200:
            # invalid_grant, or the guard's 429 once the replays pass its limit.
            assert loser.status_code in (400, 429), loser.text
            assert "access_token" not in loser.json()
    issued = winners[0].json()
    # Every loser came after the winner: each was a replay, so the tokens are revoked.
    assert not works(http, issued["access_token"])
    assert refresh(http, app, issued["refresh_token"]).status_code != 200
    assert (
        two_workers.count(
            "SELECT COUNT(*) FROM grants g JOIN applications a ON a.id = g.application_id"
            " WHERE a.client_id = ?",
            app.client_id,
        )
        == 1
    )


def test_concurrent_refreshes_share_one_refresh_token_and_leave_one_access_token(
    two_workers: World, browser: UserAgent, http: httpx.Client
):
    app = two_workers.installed
    held = tokens(http, browser, app)
    answers = race(two_workers, [lambda c: refresh(c, app, held["refresh_token"])] * 20)
    _no_server_errors(two_workers, answers)
    assert _statuses(answers) == [200] * 20, [a.text for a in answers if a.status_code != 200]
    assert {a.json()["refresh_token"] for a in answers} == {held["refresh_token"]}
    access = [a.json()["access_token"] for a in answers] + [held["access_token"]]
    assert len(set(access)) == len(access)
    valid = [token for token in access if works(http, token)]
    assert len(valid) == 1, f"{len(valid)} access tokens of one grant are valid"


def test_revocation_racing_refreshes_leaves_nothing_usable(
    two_workers: World, browser: UserAgent, http: httpx.Client
):
    for _ in range(3):  # a few interleavings
        app = two_workers.new_app("public")  # the losers' failures count against it
        held = tokens(http, browser, app)
        token = held["refresh_token"]
        calls = [lambda c, t=token, a=app: refresh(c, a, t)] * 12
        calls.insert(6, lambda c, t=token, a=app: revoke(c, a, t))
        answers = race(two_workers, calls)
        _no_server_errors(two_workers, answers)
        assert answers[6].status_code == 200 and answers[6].content == b""
        for answer in answers[:6] + answers[7:]:
            assert answer.status_code in (200, 400), answer.text
        issued = [a.json()["access_token"] for a in answers if a.status_code == 200 and a.content]
        usable = [t for t in [*issued, held["access_token"]] if works(http, t)]
        assert not usable, f"{len(usable)} access token(s) outlived the revoked grant"
        assert refresh(http, app, held["refresh_token"]).status_code == 400


def test_access_token_revocation_racing_refreshes_keeps_the_grant_consistent(
    two_workers: World, browser: UserAgent, http: httpx.Client
):
    """Revoking one access token while refreshing: at most one access token stays valid."""
    app = two_workers.new_app("public")
    held = tokens(http, browser, app)
    calls = [lambda c: refresh(c, app, held["refresh_token"])] * 10
    calls.insert(5, lambda c: revoke(c, app, held["access_token"]))
    answers = race(two_workers, calls)
    _no_server_errors(two_workers, answers)
    assert _statuses(answers) == [200] * 11
    issued = [a.json()["access_token"] for a in answers if a.content]
    assert not works(http, held["access_token"])
    assert sum(works(http, t) for t in issued) == 1
    assert refresh(http, app, held["refresh_token"]).status_code == 200


def test_manual_revocation_racing_refreshes_leaves_nothing_usable(
    two_workers: World, browser: UserAgent, http: httpx.Client
):
    app = two_workers.new_app("public")
    held = tokens(http, browser, app, scope="profile")
    csrf = session_csrf(browser)
    cookies = dict(browser.http.cookies)

    def manual(c: httpx.Client) -> httpx.Response:
        c.cookies.update(cookies)
        return c.post(
            "/account/authorized/revoke",
            data={"csrf_token": csrf, "client_id": app.client_id, "scope": "profile"},
        )

    calls = [lambda c: refresh(c, app, held["refresh_token"])] * 10
    calls.insert(5, manual)
    answers = race(two_workers, calls)
    _no_server_errors(two_workers, answers)
    assert answers[5].status_code == 303
    issued = [a.json()["access_token"] for a in answers if a.status_code == 200]
    assert not [t for t in [*issued, held["access_token"]] if works(http, t)]
    assert refresh(http, app, held["refresh_token"]).status_code == 400


def test_one_consent_form_submitted_ten_times_at_once_gives_one_code(
    two_workers: World, browser: UserAgent
):
    """The consent form's token is single-use even when the submissions race."""
    app = two_workers.new_app("public")
    params = authorize_params(app, state="race")
    form = find_form(browser.open_authorize(params).text, "consent-form")
    cookies = dict(browser.http.cookies)

    def submit(c: httpx.Client) -> httpx.Response:
        c.cookies.update(cookies)
        return c.post(form.action, data={"csrf_token": form.csrf_token, "decision": "approve"})

    answers = race(two_workers, [submit] * 10)
    _no_server_errors(two_workers, answers)
    codes = [a for a in answers if a.status_code == 302 and "code=" in a.headers["location"]]
    assert len(codes) == 1, _statuses(answers)
    assert all(a.status_code == 403 for a in answers if a not in codes), _statuses(answers)


def _exchange_against_withdrawal(site: World, browser: UserAgent, http: httpx.Client) -> None:
    app = site.new_app("public")
    code = get_code(browser, app, scope="profile")
    csrf, cookies = session_csrf(browser), dict(browser.http.cookies)

    def manual(c: httpx.Client) -> httpx.Response:
        c.cookies.update(cookies)
        return c.post(
            "/account/authorized/revoke",
            data={"csrf_token": csrf, "client_id": app.client_id, "scope": "profile"},
        )

    answers = race(site, [lambda c: exchange(c, app, code), manual])
    _no_server_errors(site, answers)
    assert answers[1].status_code == 303
    if answers[0].status_code == 200:
        issued = answers[0].json()
        assert not works(http, issued["access_token"])
        assert refresh(http, app, issued["refresh_token"]).status_code == 400
    else:
        assert answers[0].json()["error"] == "invalid_grant"


def test_manual_revocation_racing_the_code_exchange_leaves_nothing_usable(
    two_workers: World, browser: UserAgent, http: httpx.Client
):
    """Whichever wins, the user's withdrawal holds: no token from that code works after."""
    for _ in range(3):
        _exchange_against_withdrawal(two_workers, browser, http)


def test_brute_force_limit_holds_under_concurrency(two_workers: World, http: httpx.Client):
    """Sixty guesses at once on two workers: the guard's count is shared through the database.

    Within a worker, check and count run without yielding; across the two workers a guess may
    slip between another's check and count, so at most one extra guess per other worker.
    """
    victim, bystander = two_workers.new_app(), two_workers.new_app()
    align_to_window(http)
    forged = App(victim.client_id, secrets.token_urlsafe(24), victim.redirect_uri, victim.type)
    answers = race(two_workers, [lambda c: revoke(c, forged, "t")] * 60)
    _no_server_errors(two_workers, answers)
    statuses = _statuses(answers)
    assert set(statuses) <= {401, 429}, statuses
    assert statuses.count(401) <= 20 + 1, f"{statuses.count(401)} guesses were evaluated"
    assert revoke(http, victim, "t").status_code == 429  # even the right secret, for now
    assert revoke(http, bystander, "t").status_code == 200


def test_database_is_sound_after_the_races(two_workers: World):
    assert integrity_problems(Path(two_workers.database)) == []
