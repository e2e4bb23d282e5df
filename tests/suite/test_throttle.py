"""Throttling is waited for (bounded) or becomes 'could not be checked'; failed requests are
paced per client. Time is faked: these tests never sleep."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from reference_server.guard import GuardPolicy
from steps.http import throttle
from steps.http.layer import HttpLayer
from steps.http.throttle import FailureBudget, ThrottleWaits, client_of, is_failure, retry_after
from steps.outcomes import NotChecked, Throttled
from steps.profiles.bundled import SUITE_GUARD_FREE, bundled_profile


class FakeTime:
    """time.time and time.sleep of the throttle module, without waiting."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, start: float = 1_000_000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []
        monkeypatch.setattr(throttle.time, "time", lambda: self.now)
        monkeypatch.setattr(throttle.time, "sleep", self.sleep)

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def response(status: int, body: str = "", **headers: str) -> httpx.Response:
    return httpx.Response(status, text=body, headers=headers)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (response(429, **{"Retry-After": "7"}), 7.0),
        (response(429), throttle.DEFAULT_RETRY),
        (response(503, **{"Retry-After": "3"}), 3.0),
        (response(503), None),
        (response(400, '{"error": "invalid_client"}', **{"Retry-After": "3"}), None),
        (response(200), None),
    ],
)
def test_retry_after(answer: httpx.Response, expected: float | None) -> None:
    assert retry_after(answer) == expected


def test_waits_are_bounded_per_request_and_per_run(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeTime(monkeypatch)
    waits = ThrottleWaits(max_wait=30, total=50)
    assert waits.wait(response(429, **{"Retry-After": "20"}))
    assert waits.wait(response(200)) is False
    with pytest.raises(Throttled) as too_long:
        waits.wait(response(429, **{"Retry-After": "31"}))
    assert too_long.value.retry_after == 31
    with pytest.raises(Throttled):  # 20 + 20 + 20 > 50
        waits.wait(response(429, **{"Retry-After": "20"}))
        waits.wait(response(429, **{"Retry-After": "20"}))
    assert clock.sleeps == [20, 20]
    assert isinstance(too_long.value, NotChecked)  # a throttled scenario is never a verdict


def test_the_client_of_a_request() -> None:
    basic = base64.b64encode(b"basic-id:secret").decode()
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert (
        client_of(httpx.Request("POST", "https://t/", headers=form, content=b"client_id=f")) == "f"
    )
    assert client_of(httpx.Request("POST", "https://t/?client_id=q")) == "q"
    headers = {"Authorization": f"Basic {basic}"}
    assert client_of(httpx.Request("POST", "https://t/", headers=headers)) == "basic-id"
    assert client_of(httpx.Request("GET", "https://t/userinfo")) is None


@pytest.mark.parametrize(
    ("answer", "counted"),
    [
        (response(401, '{"error": "invalid_client"}'), True),
        (response(400, '{"error": "invalid_grant"}'), True),
        (response(200, '{"error": "invalid_grant"}'), True),
        (response(400, '{"error": "invalid_request"}'), False),
        (response(400, "<html>bad</html>"), False),
        (response(200, '{"access_token": "x"}'), False),
    ],
)
def test_which_answers_count_as_failed_attempts(answer: httpx.Response, counted: bool) -> None:
    assert is_failure(answer) is counted


def test_the_failure_budget_waits_for_the_oldest_failure_to_age(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clock = FakeTime(monkeypatch)
    budget = FailureBudget("https://t", per_minute=3, directory=tmp_path)
    for _ in range(3):
        budget.wait_turn("web")
        budget.record("web")
        clock.now += 10
    budget.wait_turn("other")  # another client has a budget of its own
    assert clock.sleeps == []
    budget.wait_turn("web")  # failures at 0, 10, 20 s; now 30 s: the one at 0 s ages at 60 s
    assert clock.sleeps == [30]
    # A second run (another process) against the same target shares the record.
    again = FailureBudget("https://t", per_minute=3, directory=tmp_path)
    again.record("web")
    again.wait_turn("web")
    assert clock.sleeps == [30, 10]
    assert FailureBudget("https://other", 3, directory=tmp_path).path != budget.path


def test_a_budget_of_zero_never_waits(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clock = FakeTime(monkeypatch)
    budget = FailureBudget("https://t", per_minute=0, directory=tmp_path)
    for _ in range(50):
        budget.record("web")
        budget.wait_turn("web")
    assert clock.sleeps == [] and not budget.path.exists()


def layer_with(handler: Callable[[httpx.Request], httpx.Response], tmp_path: Path) -> HttpLayer:
    layer = HttpLayer(None, target="https://t", failures_per_minute=2)
    layer.budget = FailureBudget("https://t", per_minute=2, directory=tmp_path)
    layer.api = httpx.Client(transport=httpx.MockTransport(handler))
    return layer


def test_the_http_layer_waits_out_a_429_and_sends_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clock = FakeTime(monkeypatch)
    answers = [response(429, **{"Retry-After": "4"}), response(200, '{"ok": true}')]
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return answers.pop(0)

    layer = layer_with(handler, tmp_path)
    answer = layer.request("POST", "https://t/oauth2/token", data={"client_id": "web"})
    assert (answer.status_code, len(sent), clock.sleeps) == (200, 2, [4])
    assert sent[1].content == b"client_id=web"
    assert [e.status for e in layer.exchanges] == [200]


def test_the_http_layer_gives_up_on_a_long_throttle(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    FakeTime(monkeypatch)
    layer = layer_with(lambda _: response(429, **{"Retry-After": "3600"}), tmp_path)
    with pytest.raises(Throttled, match="Retry-After 3600"):
        layer.request("POST", "https://t/oauth2/token", data={"client_id": "web"})


def test_the_http_layer_paces_failed_requests_per_client(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clock = FakeTime(monkeypatch)
    layer = layer_with(lambda _: response(401, '{"error": "invalid_client"}'), tmp_path)
    for _ in range(3):
        layer.request("POST", "https://t/oauth2/token", data={"client_id": "web"})
    assert clock.sleeps == [60]  # two failures in the same instant: the third waits a minute
    assert layer.budget.waited == 60


def test_the_suites_own_server_is_not_paced_and_its_guard_allows_a_whole_run() -> None:
    """The suite's throwaway server is started with a guard that allows every deliberate
    failure of a run, so its profile paces nothing; a deployed server keeps the default."""
    assert 1000 * GuardPolicy().free < SUITE_GUARD_FREE
    server = SimpleNamespace(base_url="https://127.0.0.1:1", ca_file="ca.pem", test_clock=True)
    assert bundled_profile(server, "pw", {})["failures_per_minute"] == 0  # type: ignore[arg-type]


def test_failures_stamped_on_a_moved_test_clock_do_not_stall_a_later_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A run that knew the target's clock was 25 minutes ahead left its failures stamped in
    that time; a later process that does not know the offset yet (the preflight) must neither
    wait 25 minutes for them nor ever wait more than a minute."""
    clock = FakeTime(monkeypatch)
    ahead = FailureBudget("https://t", per_minute=2, directory=tmp_path)
    ahead.offset = 25 * 60
    for _ in range(5):
        ahead.record("web")
    later = FailureBudget("https://t", per_minute=2, directory=tmp_path)
    later.wait_turn("web")
    assert clock.sleeps == []
    for _ in range(2):
        later.record("web")
    later.wait_turn("web")
    assert clock.sleeps and max(clock.sleeps) <= 60
