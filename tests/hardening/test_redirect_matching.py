"""The redirect matching rule itself (`reference_server.redirects.matches`), property-based
and in process: thousands of near misses of a registered URI, never one accepted but itself
(a web application) or itself with another port (a loopback redirect).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_server.redirects import OOB, matches

_NEAR = st.sampled_from([*"/.:@%#?\\&=- \t\n\x00AaLlCc0189", "%2e", "%2F", "..", "localhost"])


@st.composite
def near_misses(draw, base: str) -> str:
    """The registered URI with a few characters inserted, deleted, replaced or case-flipped."""
    text = base
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["insert", "delete", "replace", "case"]))
        piece = draw(st.one_of(_NEAR, st.text(min_size=1, max_size=3)))
        if edit == "insert":
            text = text[:at] + piece + text[at:]
        elif edit == "delete":
            text = text[:at] + text[at + 1 :]
        elif edit == "replace":
            text = text[:at] + piece + text[at + 1 :]
        else:
            text = text[:at] + text[at:].swapcase()
    return text


@pytest.mark.rule("AUTHZ-REDIRECT-URI-BYPASS")
@settings(max_examples=300, deadline=None, database=None)
@given(candidate=near_misses("https://client.example/callback"))
def test_property_web_redirect_matches_only_itself(candidate: str):
    registered = "https://client.example/callback"
    assert matches(candidate, registered, public=False) == (candidate == registered)


_PORT_ONLY = re.compile(r"http://localhost(:[1-9][0-9]{0,4})?/callback")


@settings(max_examples=300, deadline=None, database=None)
@given(
    candidate=st.one_of(
        near_misses("http://localhost/callback"), near_misses("http://localhost:4242/callback")
    )
)
def test_property_loopback_redirect_may_differ_only_in_port(candidate: str):
    if matches(candidate, "http://localhost/callback", public=True):
        assert candidate == OOB or _PORT_ONLY.fullmatch(candidate), candidate
        port = candidate.rpartition(":")[2].split("/")[0]
        assert not port.isdigit() or 0 < int(port) <= 65535
