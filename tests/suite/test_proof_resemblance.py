"""How the generated proof tells a presented value from the right one
(tests/suite/proof/resemblance.py): near misses of secrets and tokens, redirect URI changes
made by the suite's own words (steps/scenario/probes.py), the kinds of characters of a state."""

from __future__ import annotations

import pytest

from steps.profiles.profile import RegisteredApp
from steps.rules.dimensions import load_dimensions
from steps.scenario.probes import WRONG_SECRET, change_uri, loopback_uri, wrong_secret
from tests.suite.broken.exchange import ProxyRequest
from tests.suite.broken.registry import AUTHORIZE
from tests.suite.proof.classify import agrees, classify
from tests.suite.proof.ledger import Ledger
from tests.suite.proof.presented import Request
from tests.suite.proof.resemblance import near_form, near_miss, redirect_change, state_kinds

WEB = {
    "client_id": "web-id",
    "client_secret": "web-secret-0123",
    "redirect_uri": "https://client.example/callback",
}
INSTALLED = {
    "client_id": "app-id",
    "client_secret": "app-secret-4567",
    "redirect_uri": "http://localhost/callback",
}
OTHER = {
    "client_id": "other-id",
    "client_secret": "other-secret-89",
    "redirect_uri": "https://other.example/cb",
}
PROFILE = {
    "clients": {"web": WEB, "installed": INSTALLED, "other_web": OTHER},
    "user": {"username": "alice", "email": "alice@example.org"},
}


# --- the classifier on hand-made requests -------------------------------------------------


@pytest.mark.parametrize("value", load_dimensions().dimensions["near_miss"].values)
def test_the_suite_s_wrong_secrets_are_told_by_their_near_miss(value: str) -> None:
    """Each near miss the features name, made by the suite's own words, is classified as that
    near miss (a value the suite cannot make yet is made by hand)."""
    right = WEB["client_secret"]
    words = load_dimensions().dimensions["near_miss"].words[value]
    try:
        presented = wrong_secret(RegisteredApp("web", WEB["client_id"], right, ""), words)
    except ValueError:  # words the suite's probes do not make (yet)
        presented = {"prefix": right[: len(right) // 2], "case": right.upper()}[value]
    assert near_miss(presented, right) == [value]


def test_the_right_secret_and_none_are_no_near_miss() -> None:
    assert near_miss("web-secret-0123", "web-secret-0123") == []
    assert near_miss(None, "web-secret-0123") == []
    assert near_miss(WRONG_SECRET, "web-secret-0123") == ["other"]


def test_a_last_character_changed_in_case_only_is_both() -> None:
    assert near_miss("web-secret-012a", "web-secret-012A") == ["case", "changed"]


@pytest.mark.parametrize("value", load_dimensions().dimensions["redirect_change"].values)
def test_the_suite_s_redirect_changes_are_told_apart(value: str) -> None:
    """The suite's own change of the registered URI (steps/scenario/probes.py) is classified
    as the change the features name; an installed application's localhost URI is compared
    on the port it chose."""
    words = load_dimensions().dimensions["redirect_change"].words[value]
    web, installed = WEB["redirect_uri"], INSTALLED["redirect_uri"]
    if value == "absent":
        query = [("response_type", "code"), ("client_id", WEB["client_id"]), ("scope", "profile")]
        request = Request(ProxyRequest("GET", AUTHORIZE, query, []), Ledger.of(PROFILE, {}))
        assert classify(request)["redirect_change"] == value
        return
    if value == "host_port":
        presented = loopback_uri(installed, 49152).replace("localhost", "127.0.0.2")
        assert redirect_change(presented, installed, installed=True) == value
        return
    try:
        presented = change_uri(web, words)
    except ValueError:
        pytest.fail(f"the suite has no words for {value!r}: {words!r}")
    assert redirect_change(presented, web, installed=False) == value
    if value not in ("oob", "localhost", "port"):
        on_port = change_uri(loopback_uri(installed, 49152), words)
        assert redirect_change(on_port, installed, installed=True) in (value, "host_port")


def test_allowed_redirects_are_no_change() -> None:
    installed = INSTALLED["redirect_uri"]
    assert redirect_change(loopback_uri(installed, 49152), installed, installed=True) == "-"
    assert redirect_change("urn:ietf:wg:oauth:2.0:oob", installed, installed=True) == "-"
    assert redirect_change("urn:ietf:wg:oauth:2.0:oob", WEB["redirect_uri"], False) == "oob"


def test_a_near_form_names_the_issued_value() -> None:
    issued = ["abcdef"]
    assert near_form("abcdeX", issued) == ("changed", "abcdef")
    assert near_form("abcde", issued) == ("truncated", "abcdef")
    assert near_form("abcdeff", issued) == ("extended", "abcdef")
    assert near_form("zzz", issued) is None


def test_state_kinds() -> None:
    assert state_kinds("st-f06c93ab2625") == ["plain"]
    assert state_kinds("1+1=2 %2B%41%zz #top ?x=&y;z") == ["reserved"]
    assert state_kinds("Grüße") == ["unicode"]
    assert state_kinds("Grüße, 東京") == ["reserved", "unicode"]
    assert state_kinds(None) == []


def test_values_told_up_to_a_choice_match_any_of_them() -> None:
    assert agrees("header|query", "query")
    assert not agrees("header|query", "body")
    assert agrees("*", "refresh")
    assert agrees("-", "-") and not agrees("-", "online")
