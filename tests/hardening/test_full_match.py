"""Validation matches whole values: a trailing newline is not "the rest".

A pattern ending in `$` matches before a final "\\n", so `...callback%0A` passed as the
registered loopback URI, and a PKCE challenge ending in "\\n" passed the format check.
"""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import given, settings

from reference_server import pkce, redirects
from tests.support.user_agent import UserAgent

from .helpers import World, authorize_params, query_of

TRAILERS = st.sampled_from(["\n", "\r\n", "\r", "\t", " ", "\x00", "\x0b", "\x0c"])
VERIFIERS = st.from_regex(r"[A-Za-z0-9._~-]{43,128}", fullmatch=True)
S256 = st.from_regex(r"[A-Za-z0-9_-]{43}", fullmatch=True)
LOOPBACKS = st.from_regex(
    r"http://(localhost|127\.0\.0\.1|\[::1\])(:[1-9][0-9]{0,3})?/[a-z]{0,10}", fullmatch=True
)


@settings(max_examples=200, deadline=None)
@given(VERIFIERS, TRAILERS)
def test_a_plain_challenge_or_verifier_with_a_trailer_is_refused(value: str, trailer: str):
    assert pkce.challenge_problem(value, "plain") is None  # the control: valid as it is
    assert pkce.challenge_problem(value + trailer, "plain") is not None
    assert not pkce.verifier_matches(value + trailer, value + trailer, "plain")


@settings(max_examples=200, deadline=None)
@given(S256, TRAILERS)
def test_an_s256_challenge_with_a_trailer_is_refused(value: str, trailer: str):
    assert pkce.challenge_problem(value, "S256") is None
    assert pkce.challenge_problem(value + trailer, "S256") is not None


@settings(max_examples=200, deadline=None)
@given(LOOPBACKS, TRAILERS)
def test_a_loopback_redirect_with_a_trailer_matches_nothing(uri: str, trailer: str):
    assert redirects.matches(uri, uri, public=True)  # the control
    assert not redirects.matches(uri + trailer, uri, public=True)
    assert not redirects.is_loopback(uri + trailer)
    assert redirects.validate_registered_uri(uri + trailer, "public") is not None


def test_the_probe_redirect_with_a_newline_is_refused_on_our_page(site: World, agent: UserAgent):
    params = authorize_params(site.installed, state="s")
    params["redirect_uri"] = site.installed.redirect_uri + "\n"  # sent as %0A
    answer = agent.http.get("/oauth2/authorize", params=params)
    assert answer.status_code == 400 and "location" not in answer.headers, answer.text[:300]


def test_a_challenge_ending_in_newline_is_refused(site: World):
    browser = site.agent()
    try:
        browser.log_in()
        params = authorize_params(site.installed, challenge="a" * 43 + "\n", method="plain")
        answer = browser.http.get("/oauth2/authorize", params=params)
        assert answer.status_code == 302, answer.text[:300]
        assert query_of(answer.headers["location"])["error"] == "invalid_request"
    finally:
        browser.close()
