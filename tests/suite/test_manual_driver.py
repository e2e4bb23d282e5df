"""The manual consent driver: the dialogue with the person at the terminal, and asking only
when the service wants its user."""

from __future__ import annotations

import os
import pty
import select
from pathlib import Path

import pytest

from steps.consent import RedirectResult, ServicePage, make_driver
from steps.consent.base import RUN_PROMPTS
from steps.consent.manual import Console, ManualDriver, NoTerminal
from steps.http import HttpLayer
from steps.outcomes import NotChecked
from steps.profile import Profile
from steps.service import Service
from tests.suite.consent_support import (
    ScriptedConsole,
    authorize_url,
    driver_profile,
    minimal_profile_at,
)
from tests.suite.target import Target


@pytest.fixture
def minimal_profile(tmp_path: Path) -> Profile:
    return minimal_profile_at(tmp_path)


def _manual(answers: list[str], profile: Profile) -> tuple[ManualDriver, ScriptedConsole]:
    console = ScriptedConsole(answers)
    return ManualDriver(profile, console), console


def test_the_manual_driver_reads_a_pasted_redirect_and_numbers_its_prompts(
    minimal_profile: Profile,
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
    assert driver.stats == {"approve": 1, "deny": 1, "open": 0, "revoke": 0}


def test_the_manual_driver_takes_a_copied_code_or_an_error_page(minimal_profile: Profile) -> None:
    driver, console = _manual(["CoPiEdCoDe", "error", "consent", ""], minimal_profile)
    code = driver.approve("https://mb.example/a")
    assert isinstance(code, RedirectResult) and code.oob and code.code == "CoPiEdCoDe"
    page = driver.deny("https://mb.example/a")
    assert isinstance(page, ServicePage) and not page.consent
    consent = driver.open("https://mb.example/a")
    assert isinstance(consent, ServicePage) and consent.consent
    driver.revoke_manually("client-1", "profile")
    assert driver.observes_pages is False
    assert driver.stats == {"approve": 1, "deny": 1, "open": 1, "revoke": 1}
    assert driver.prompts == 4
    assert "4 prompt(s)" in driver.summary()
    before = dict(RUN_PROMPTS)
    driver.close()
    assert {k: RUN_PROMPTS[k] - before[k] for k in before} == driver.stats
    assert console.told == [f"\n{driver.summary()}\n"]


def test_what_a_person_types_is_a_secret_to_the_masker(minimal_profile: Profile) -> None:
    """A code the person typed, or one in an address they pasted, never reaches a report
    unmasked (the reports scrub every secret the run's HTTP layer knows)."""
    http = HttpLayer(None)
    pasted = "https://client.example/callback?code=PastedCode456&state=s1"
    driver = ManualDriver(minimal_profile, ScriptedConsole(["TypedCode123", pasted]), http)
    driver.look = None  # no service to look at first: the person answers every prompt
    driver.approve("https://mb.example/oauth2/authorize?x=1")
    driver.approve("https://mb.example/oauth2/authorize?x=2")
    message = "ended on RedirectResult(code='TypedCode123'), then PastedCode456"
    scrubbed = http.secrets.scrub(message)
    assert "TypedCode123" not in scrubbed and "PastedCode456" not in scrubbed
    assert "s1" not in http.secrets.values()  # the state is evidence, not a secret


def test_the_manual_driver_takes_the_pasted_address_of_the_out_of_band_page(
    minimal_profile: Profile,
) -> None:
    driver, _ = _manual(["https://mb.example/oauth2/oob?code=Xy%2B1&state=s"], minimal_profile)
    outcome = driver.approve("https://mb.example/oauth2/authorize?redirect_uri=urn")
    assert isinstance(outcome, RedirectResult) and outcome.oob
    assert (outcome.code, outcome.state) == ("Xy+1", "s")


def test_the_console_talks_on_a_real_terminal(tmp_path: Path) -> None:
    """A pty stands for the person's terminal: one "r+" handle cannot be opened on it."""
    main, secondary = pty.openpty()
    try:
        os.write(main, b"my answer\n")
        answer = Console(tty=os.ttyname(secondary)).ask("Question?\n> ")
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


def test_without_a_terminal_the_manual_driver_is_a_setup_error(minimal_profile: Profile) -> None:
    console = Console(tty=str(Path("/nonexistent/tty")))
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
    assert driver.stats == {"approve": 1, "deny": 0, "open": 0, "revoke": 0}
