"""The manual consent driver: the dialogue with the person at the terminal, and asking only
when the service wants its user."""

from __future__ import annotations

import os
import pty
import select
from dataclasses import replace
from pathlib import Path

import pytest

from steps.consent import DriverError, RedirectResult, ServicePage, make_driver
from steps.consent.base import RUN_PROMPTS
from steps.consent.form import FormDriver
from steps.consent.handover import cookie_pairs
from steps.consent.manual import ManualDriver, NoTerminal, OperatorConsole
from steps.consent.presets import resolve_preset
from steps.http.layer import HttpLayer
from steps.outcomes import NotChecked
from steps.profiles.profile import TargetProfile
from steps.scenario.service import Service
from tests.suite.consent_support import (
    ScriptedConsole,
    authorize_url,
    driver_profile,
    minimal_profile_at,
)
from tests.suite.target import Target


@pytest.fixture
def minimal_profile(tmp_path: Path) -> TargetProfile:
    return minimal_profile_at(tmp_path)


def _manual(answers: list[str], profile: TargetProfile) -> tuple[ManualDriver, ScriptedConsole]:
    console = ScriptedConsole(answers)
    return ManualDriver(profile, console), console


def test_the_manual_driver_reads_a_pasted_redirect_and_numbers_its_prompts(
    minimal_profile: TargetProfile,
) -> None:
    driver, console = _manual(
        ["https://client.example/callback?code=abc&state=s1", "error"], minimal_profile
    )
    outcome = driver.approve("https://mb.example/oauth2/authorize?x=1")
    assert isinstance(outcome, RedirectResult) and (outcome.code, outcome.state) == ("abc", "s1")
    assert "[prompt 1: approve]" in console.prompts[0]
    assert "https://mb.example/oauth2/authorize?x=1" in console.prompts[0]
    driver.deny("https://mb.example/oauth2/authorize?x=2")
    assert "[prompt 2: deny]" in console.prompts[1]
    assert "left" not in " ".join(console.prompts)  # no estimate that can be wrong
    assert driver.stats == {"approve": 1, "deny": 1, "open": 0, "revoke": 0, "session": 0}


def test_the_manual_driver_takes_a_copied_code_or_an_error_page(
    minimal_profile: TargetProfile,
) -> None:
    driver, console = _manual(["CoPiEdCoDe", "error", "consent", ""], minimal_profile)
    code = driver.approve("https://mb.example/a")
    assert isinstance(code, RedirectResult) and code.oob and code.code == "CoPiEdCoDe"
    page = driver.deny("https://mb.example/a")
    assert isinstance(page, ServicePage) and not page.consent
    consent = driver.open("https://mb.example/a")
    assert isinstance(consent, ServicePage) and consent.consent
    driver.revoke_manually("client-1", "profile")
    assert driver.observes_pages is False
    assert driver.stats == {"approve": 1, "deny": 1, "open": 1, "revoke": 1, "session": 0}
    assert driver.prompts == 4
    assert "4 prompt(s)" in driver.summary()
    before = dict(RUN_PROMPTS)
    driver.close()
    assert {k: RUN_PROMPTS[k] - before[k] for k in before} == driver.stats
    assert console.told == [f"\n{driver.summary()}\n"]


def test_what_a_person_types_is_a_secret_to_the_masker(minimal_profile: TargetProfile) -> None:
    """A code the person typed, or one in an address they pasted, never reaches a report
    unmasked (the reports scrub every secret the run's HTTP layer knows)."""
    http = HttpLayer(None)
    pasted = "https://client.example/callback?code=PastedCode456&state=st-evidence-1"
    driver = ManualDriver(minimal_profile, ScriptedConsole(["TypedCode123", pasted]), http)
    driver.look = None  # no service to look at first: the person answers every prompt
    driver.approve("https://mb.example/oauth2/authorize?x=1")
    driver.approve("https://mb.example/oauth2/authorize?x=2")
    message = "ended on RedirectResult(code='TypedCode123'), then PastedCode456, st-evidence-1"
    scrubbed = http.redactor.scrub(message)
    assert "TypedCode123" not in scrubbed and "PastedCode456" not in scrubbed
    assert "st-evidence-1" in scrubbed  # the state is evidence, not a secret


def test_the_manual_driver_takes_the_pasted_address_of_the_out_of_band_page(
    minimal_profile: TargetProfile,
) -> None:
    driver, _ = _manual(["https://mb.example/oauth2/oob?code=Xy%2B1&state=s"], minimal_profile)
    oob = "redirect_uri=urn%3Aietf%3Awg%3Aoauth%3A2.0%3Aoob&state=s"
    outcome = driver.approve(f"https://mb.example/oauth2/authorize?{oob}")
    assert isinstance(outcome, RedirectResult) and outcome.oob
    assert (outcome.code, outcome.state) == ("Xy+1", "s")


def test_the_console_talks_on_a_real_terminal(tmp_path: Path) -> None:
    """A pty stands for the person's terminal: one "r+" handle cannot be opened on it."""
    main, secondary = pty.openpty()
    try:
        os.write(main, b"my answer\n")
        answer = OperatorConsole(tty=os.ttyname(secondary)).ask("Question?\n> ")
        shown = _read_until(main, "Question?")
    finally:
        os.close(main)
        os.close(secondary)
    assert answer == "my answer"
    assert "Question?" in shown


def _read_until(fd: int, text: str, timeout: float = 5.0) -> str:
    """What the terminal shows, read until `text` appears (echo and output come in pieces)."""
    shown = ""
    while text not in shown and select.select([fd], [], [], timeout)[0]:
        shown += os.read(fd, 1000).decode(errors="replace")
    return shown


def test_without_a_terminal_the_manual_driver_is_a_setup_error(
    minimal_profile: TargetProfile,
) -> None:
    console = OperatorConsole(tty=str(Path("/nonexistent/tty")))
    with pytest.raises(NoTerminal, match="needs a terminal") as failure:
        ManualDriver(minimal_profile, console)
    assert isinstance(failure.value, NotChecked)


def test_the_manual_driver_asks_only_when_the_service_wants_its_user(target: Target) -> None:
    """Refusals before any login are read anonymously; a login page goes to the person."""
    profile = driver_profile(target, "manual")
    http = HttpLayer(profile.ca_file)
    service = Service(profile, http)
    answer = "https://client.example/callback?code=from-the-person"
    console = ScriptedConsole([answer])
    driver = make_driver(profile, http, console)

    page = driver.open(
        authorize_url(service, profile, "web", redirect_uri="https://attacker.example/")
    )
    assert isinstance(page, ServicePage) and not page.consent and page.status == 400
    refused = driver.approve(authorize_url(service, profile, "web", scope="profile nonsense"))
    assert isinstance(refused, RedirectResult) and refused.error == "invalid_scope"
    assert console.prompts == []

    approved = driver.approve(authorize_url(service, profile, "web"))
    assert isinstance(approved, RedirectResult) and approved.code == "from-the-person"
    assert driver.stats == {"approve": 1, "deny": 0, "open": 0, "revoke": 0, "session": 0}


AUTHORIZE = "https://mb.example/oauth2/authorize"
CALLBACK = "https://client.example/callback"
OOB_QUERY = "redirect_uri=urn%3Aietf%3Awg%3Aoauth%3A2.0%3Aoob&state=s9"


def _request(state: str = "s1", redirect: str = CALLBACK) -> str:
    from urllib.parse import urlencode

    return f"{AUTHORIZE}?{urlencode({'redirect_uri': redirect, 'state': state})}"


@pytest.mark.parametrize(
    ("mistake", "reason"),
    [
        ("https://other.example/cb?code=c1&state=s1", "not to this request's redirect URI"),
        (f"{CALLBACK}?code=c1&state=s0", "not this request's state 's1'"),
        (f"{CALLBACK}?code=c1", "carries no state"),
        ("https://mb.example/oauth2/oob?code=c1", "the service's code page"),
        ("TypedCode1", "looks like a code"),
        (_request(), "the address you were asked to open"),
    ],
)
def test_a_paste_that_does_not_fit_the_request_is_asked_for_again(
    minimal_profile: TargetProfile, mistake: str, reason: str
) -> None:
    """One stale paste once gave 23 spec failures; now it is never read as an outcome."""
    right = f"{CALLBACK}?code=right&state=s1"
    driver, console = _manual([mistake, right], minimal_profile)
    outcome = driver.approve(_request())
    assert isinstance(outcome, RedirectResult) and outcome.code == "right"
    assert reason in console.prompts[1], console.prompts[1]
    assert "[prompt 1, again]" in console.prompts[1]
    assert driver.stats["approve"] == 1 and driver.asked_again == 1
    assert "1 answer(s) asked for again" in driver.summary()


def test_a_redirect_where_the_code_page_was_expected_is_asked_for_again(
    minimal_profile: TargetProfile,
) -> None:
    driver, console = _manual(
        [f"{CALLBACK}?code=c1&state=s9", "https://mb.example/oauth2/oob?code=oob1"],
        minimal_profile,
    )
    outcome = driver.approve(f"{AUTHORIZE}?{OOB_QUERY}")
    assert isinstance(outcome, RedirectResult) and outcome.oob and outcome.code == "oob1"
    assert "show the code on its own page" in console.prompts[1]


def test_a_code_pasted_for_an_earlier_prompt_is_asked_for_again(
    minimal_profile: TargetProfile,
) -> None:
    first = f"{CALLBACK}?code=c1&state=s1"
    driver, console = _manual(
        [first, f"{CALLBACK}?code=c1&state=s2", f"{CALLBACK}?code=c2&state=s2"], minimal_profile
    )
    driver.approve(_request("s1"))
    outcome = driver.approve(_request("s2"))
    assert isinstance(outcome, RedirectResult) and outcome.code == "c2"
    assert "pasted for an earlier prompt" in console.prompts[2]


def test_an_answer_pasted_twice_unchanged_stands(minimal_profile: TargetProfile) -> None:
    """The service may really have sent the browser elsewhere: the person says so by pasting
    the same address again, and the rule about it then judges the service."""
    elsewhere = "https://client.example/other?code=c1&state=s1"
    driver, _ = _manual([elsewhere, elsewhere], minimal_profile)
    outcome = driver.approve(_request())
    assert isinstance(outcome, RedirectResult) and outcome.url == elsewhere
    assert driver.asked_again == 1


def test_words_and_the_error_page_fit_every_prompt(minimal_profile: TargetProfile) -> None:
    driver, console = _manual(["error", "consent"], minimal_profile)
    assert isinstance(driver.deny(_request()), ServicePage)
    assert isinstance(driver.open(_request("s2")), ServicePage)
    assert len(console.prompts) == 2 and driver.asked_again == 0


def test_each_prompt_shows_its_number_of_about_the_estimate_and_the_rule_it_serves(
    minimal_profile: TargetProfile,
) -> None:
    driver, console = _manual(
        [f"{CALLBACK}?code=a&state=s1", f"{CALLBACK}?code=b&state=s2"], minimal_profile
    )
    driver.expected_prompts = 1
    driver.serving = "AUTHZ-STATE-ECHO (The state comes back unchanged)"
    driver.approve(_request("s1"))
    driver.approve(_request("s2"))
    assert console.prompts[0].startswith(
        "\n[prompt 1 of about 1: approve] for AUTHZ-STATE-ECHO (The state comes back unchanged)\n"
    )
    assert "[prompt 2 of about 2: approve]" in console.prompts[1]  # never "2 of about 1"


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_handed_over_session_answers_the_pages_and_is_asked_for_again_when_it_ends(
    target: Target, host: str
) -> None:
    """`[consent.manual] hand_over_session`: one prompt for the person's Cookie header, then
    the form driver answers as them; a session that no longer logs in is asked for again, and
    its cookies are secrets of the run. Also at a host name without a dot (localhost), whose
    cookie Python's cookie jar would drop: the suite carries the pasted cookie itself."""
    profile = driver_profile(target, "manual")
    base_url = profile.base_url.replace("127.0.0.1", host)
    manual = {"hand_over_session": True}
    profile = replace(profile, base_url=base_url, consent=replace(profile.consent, manual=manual))
    http = HttpLayer(profile.ca_file)
    service = Service(profile, http)
    person = FormDriver(profile, HttpLayer(profile.ca_file), resolve_preset("bundled", {}))
    person.log_in()
    header = "; ".join(f"{c.name}={c.value}" for c in person.client.cookies.jar)
    console = ScriptedConsole(["stale=session-value-1", header])
    driver = make_driver(profile, http, console)
    approved = driver.approve(authorize_url(service, profile, "installed"))
    assert isinstance(approved, RedirectResult) and approved.code
    assert driver.stats["session"] == 2 and driver.prompts == 2  # the stale one, then the right
    assert "Cookie header" in console.prompts[0]
    assert driver.prompts_for(100) == 1 and driver.observes_pages
    value = header.split("=", 1)[1].split(";")[0]
    assert value not in http.redactor.scrub(f"message with {value}")


@pytest.mark.parametrize(
    ("header", "cookies"),
    [
        ("a=1; b=two", {"a": "1", "b": "two"}),
        ("Cookie: session=abc.def", {"session": "abc.def"}),
    ],
)
def test_a_pasted_cookie_header_is_read_as_its_cookies(header: str, cookies: dict) -> None:
    assert cookie_pairs(header) == cookies


def test_a_paste_that_is_no_cookie_header_is_refused() -> None:
    with pytest.raises(DriverError, match="not a Cookie header"):
        cookie_pairs("just some words")
