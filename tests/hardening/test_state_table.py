"""A stateful model of spec section 3, run against a server of its own with a test clock.

Hypothesis drives random sequences of authorizations (consent page or not), code exchanges
(replays included), refreshes (by the owner and by another client), revocations of access and
refresh tokens, manual revocations on the user's page, and clock moves. The model predicts
every answer; the invariant is the state table: whatever the sequence, a revoked or expired
token never works and a valid one always does.

Time: the server's clock is read before and after each request that issues something, so an
expiry that falls inside that second is "unknown" and not judged.

Over 300 lines on purpose: one Hypothesis state machine, its model and its rules read best
whole; split, each rule would lose sight of the model it updates.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from reference_server.launcher import ServerProcess
from tests.support.user_agent import UserAgent, find_form

from .helpers import (
    App,
    World,
    authorize_params,
    exchange,
    provision,
    query_of,
    refresh,
    revoke,
    server_now,
    session_csrf,
)

ACCESS_LIFETIME = 3600
CODE_LIFETIME = 600
SCOPES = ["profile", "profile email"]  # canonical order, as the server stores them
GUARD_MARGIN = 15  # expected failures per client before the model moves to a fresh window


@dataclass
class Access:
    token: str
    lo: int  # server time bounds of issue
    hi: int
    revoked: bool = False


@dataclass
class Grant:
    app: str
    scope: str
    refresh_token: str | None
    access: list[Access] = field(default_factory=list)
    revoked: bool = False


@dataclass
class Code:
    app: str
    scope: str
    value: str
    offline: bool
    lo: int
    hi: int
    redeemed_by: Grant | None = None
    withdrawn: bool = False  # a manual revocation ended it before use


def _alive(lo: int, hi: int, lifetime: int, now_lo: int, now_hi: int) -> bool | None:
    """True/False when certain; None when the boundary falls within the clock's uncertainty."""
    if now_hi < lo + lifetime:
        return True
    if now_lo >= hi + lifetime:
        return False
    return None


class StateTable(RuleBasedStateMachine):
    site: World
    browser: UserAgent
    http: httpx.Client

    def __init__(self) -> None:
        super().__init__()
        self.codes: list[Code] = []
        self.grants: list[Grant] = []
        self.consents: set[tuple[str, str]] = set()
        self.failures: dict[str, int] = {}
        self.touched: list[Grant] = []

    @initialize()
    def fresh_applications(self) -> None:
        """New applications for every run: no consent or guard count carries over."""
        self.apps: dict[str, App] = {
            "web": self.site.new_app("confidential"),
            "installed": self.site.new_app("public"),
            "other": self.site.new_app("confidential"),
        }

    # helpers --------------------------------------------------------------------------------

    def now(self) -> int:
        return server_now(self.http)

    def expect_failure(self, app: str) -> None:
        """The guard would lock out a client after 20 failures a window: start a new window."""
        self.failures[app] = self.failures.get(app, 0) + 1
        if self.failures[app] >= GUARD_MARGIN:
            self.http.post("/_test/clock", data={"advance": "61"})
            self.failures.clear()
            self.touched = list(self.grants)

    def page_expected(self, app: str, scope: str, force: bool, lo: int, hi: int) -> bool | None:
        """Consent stands while a grant of it lives, or before any exists."""
        if app == "installed" or force or (app, scope) not in self.consents:
            return True
        found = [g for g in self.grants if (g.app, g.scope) == (app, scope)]
        if not found:
            return False
        alive = [self.grant_alive(g, lo, hi) for g in found]
        if True in alive:
            return False
        return None if None in alive else True

    def grant_alive(self, grant: Grant, lo: int, hi: int) -> bool | None:
        if grant.revoked:
            return False
        if grant.refresh_token:
            return True
        states = [
            _alive(a.lo, a.hi, ACCESS_LIFETIME, lo, hi) for a in grant.access if not a.revoked
        ]
        if True in states:
            return True
        return None if None in states else False

    def issue_access(self, grant: Grant, token: str, lo: int, hi: int) -> None:
        for old in grant.access:  # a refresh ends the previous access tokens of the grant
            old.revoked = True
        grant.access.append(Access(token, lo, hi))

    # rules ----------------------------------------------------------------------------------

    @rule(
        app=st.sampled_from(["web", "installed"]),
        scope=st.sampled_from(SCOPES),
        offline=st.booleans(),
        force=st.booleans(),
    )
    def authorize(self, app: str, scope: str, offline: bool, force: bool) -> None:
        params = authorize_params(self.apps[app], scope=scope, offline=offline, force=force)
        lo = self.now()
        answer = self.browser.open_authorize(params)
        page_expected = self.page_expected(app, scope, force, lo, self.now())
        shown = answer.status_code == 200 and 'id="consent-form"' in answer.text
        if page_expected is not None:
            assert shown == page_expected, f"consent page shown={shown}, expected {page_expected}"
        if shown:
            answer = self.browser.decide(answer, "approve")
        hi = self.now()
        assert answer.status_code == 302, answer.text[:300]
        code = query_of(answer.headers["location"])["code"]
        if app == "web":
            self.consents.add((app, scope))
        refreshable = app == "installed" or (shown and offline)
        self.codes.append(Code(app, scope, code, refreshable, lo, hi))

    @precondition(lambda self: self.codes)
    @rule(data=st.data())
    def exchange_code(self, data: st.DataObject) -> None:
        code = data.draw(st.sampled_from(self.codes), label="code")
        now_lo = self.now()
        answer = exchange(self.http, self.apps[code.app], code.value)
        now_hi = self.now()
        if code.redeemed_by is not None:
            # A replay: refused, and what the code gave is revoked (RFC 6749 4.1.2).
            assert answer.status_code == 400 and answer.json()["error"] == "invalid_grant"
            code.redeemed_by.revoked = True
            self.touched.append(code.redeemed_by)
            self.expect_failure(code.app)
            return
        alive = _alive(code.lo, code.hi, CODE_LIFETIME, now_lo, now_hi)
        if code.withdrawn or alive is False:
            assert answer.status_code == 400 and answer.json()["error"] == "invalid_grant"
            self.expect_failure(code.app)
            return
        if alive is None and answer.status_code == 400:
            self.expect_failure(code.app)
            return
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert ("refresh_token" in body) == code.offline, body.keys()
        grant = Grant(code.app, code.scope, body.get("refresh_token"))
        self.issue_access(grant, body["access_token"], now_lo, now_hi)
        code.redeemed_by = grant
        self.grants.append(grant)
        self.touched.append(grant)

    @precondition(lambda self: any(g.refresh_token for g in self.grants))
    @rule(data=st.data(), by_other=st.booleans())
    def refresh_grant(self, data: st.DataObject, by_other: bool) -> None:
        grant = data.draw(st.sampled_from([g for g in self.grants if g.refresh_token]))
        assert grant.refresh_token is not None
        client = "other" if by_other else grant.app
        now_lo = self.now()
        answer = refresh(self.http, self.apps[client], grant.refresh_token)
        now_hi = self.now()
        if by_other or grant.revoked:
            assert answer.status_code == 400, answer.text
            assert answer.json()["error"] == "invalid_grant"
            self.expect_failure(client)
            return
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["refresh_token"] == grant.refresh_token
        assert body["expires_in"] == ACCESS_LIFETIME
        self.issue_access(grant, body["access_token"], now_lo, now_hi)
        self.touched.append(grant)

    @precondition(lambda self: self.grants)
    @rule(data=st.data())
    def revoke_access_token(self, data: st.DataObject) -> None:
        grant = data.draw(st.sampled_from(self.grants))
        access = data.draw(st.sampled_from(grant.access))
        answer = revoke(self.http, self.apps[grant.app], access.token)
        assert answer.status_code == 200 and answer.content == b""
        if grant.refresh_token is None:
            grant.revoked = True  # online: the whole grant (spec 3)
        else:
            access.revoked = True  # offline or installed: only that token
        self.touched.append(grant)

    @precondition(lambda self: any(g.refresh_token for g in self.grants))
    @rule(data=st.data())
    def revoke_refresh_token(self, data: st.DataObject) -> None:
        grant = data.draw(st.sampled_from([g for g in self.grants if g.refresh_token]))
        assert grant.refresh_token is not None
        answer = revoke(self.http, self.apps[grant.app], grant.refresh_token)
        assert answer.status_code == 200 and answer.content == b""
        grant.revoked = True
        self.touched.append(grant)

    @rule(app=st.sampled_from(["web", "installed"]), scope=st.sampled_from(SCOPES))
    def revoke_manually(self, app: str, scope: str) -> None:
        answer = self.browser.http.post(
            "/account/authorized/revoke",
            data={
                "csrf_token": session_csrf(self.browser),
                "client_id": self.apps[app].client_id,
                "scope": scope,
            },
        )
        assert answer.status_code == 303, answer.text[:300]
        for grant in self.grants:
            if (grant.app, grant.scope) == (app, scope):
                grant.revoked = True
                self.touched.append(grant)
        for code in self.codes:
            if (code.app, code.scope) == (app, scope) and code.redeemed_by is None:
                code.withdrawn = True
        self.consents.discard((app, scope))

    @rule(seconds=st.sampled_from([1, 59, 301, 599, 601, 1800, 3599, 3601, 4000]))
    def move_clock(self, seconds: int) -> None:
        self.http.post("/_test/clock", data={"advance": str(seconds)})
        self.touched = list(self.grants)

    @rule()
    def check_every_token(self) -> None:
        self.touched = list(self.grants)

    # the state table --------------------------------------------------------------------------

    @invariant()
    def tokens_work_exactly_when_the_table_says(self) -> None:
        grants, self.touched = {id(g): g for g in self.touched}, []
        for grant in grants.values():
            for access in grant.access:
                now_lo = self.now()
                status = self.http.get(
                    "/oauth2/userinfo", headers={"Authorization": f"Bearer {access.token}"}
                ).status_code
                now_hi = self.now()
                alive = _alive(access.lo, access.hi, ACCESS_LIFETIME, now_lo, now_hi)
                if grant.revoked or access.revoked or alive is False:
                    assert status == 401, f"a revoked or expired token works ({grant})"
                elif alive:
                    assert status == 200, f"a valid token is refused: {status} ({grant})"


@pytest.fixture(scope="module")
def model_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    data_dir = tmp_path_factory.mktemp("state-table") / "data"
    # No background purge here: the model does not follow what it removes.
    extra = ("--purge-interval", "1000000")
    with ServerProcess(data_dir, test_clock=True, extra_args=extra) as running:
        provisioned = provision(running)
        yield provisioned
        provisioned.close()


def test_state_table_holds_for_any_sequence(model_site: World):
    browser = model_site.agent()
    browser.log_in()
    with model_site.http() as http:
        StateTable.site, StateTable.browser, StateTable.http = model_site, browser, http
        run_state_machine_as_test(
            StateTable,
            settings=settings(
                max_examples=20,
                stateful_step_count=30,
                deadline=None,
                database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
            ),
        )
    browser.close()


def test_consent_form_is_needed_for_the_model(model_site: World):
    """The model's consent rule rests on the page's form: keep that assumption checked."""
    browser = model_site.agent()
    page = browser.open_authorize(authorize_params(model_site.installed))
    assert find_form(page.text, "consent-form").csrf_token
    browser.close()
