"""The token answer is written once (reference_server/oauth/replies.py `token_fields`); its fast
path writes, byte for byte, what the standard encoder writes of those fields, for every
answer: base64url tokens (the fast path's) and any other text, any integer, with a refresh
token or without."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference_server.answers import encode_json
from reference_server.grants import IssuedTokens
from reference_server.oauth import replies

BASE64URL = st.from_regex(r"[A-Za-z0-9_-]{0,64}", fullmatch=True)
TOKENS = st.builds(
    IssuedTokens,
    access_token=st.one_of(BASE64URL, st.text()),
    expires_in=st.one_of(st.just(3600), st.integers(), st.booleans()),
    refresh_token=st.one_of(st.none(), BASE64URL, st.text()),
)


@given(TOKENS)
def test_the_answer_is_the_standard_encoding_of_its_fields(tokens: IssuedTokens) -> None:
    assert replies.token_answer(tokens).body == encode_json(replies.token_fields(tokens))


@pytest.mark.parametrize("refresh", ["R" * 43, None])
def test_the_usual_answers_are_the_fields_of_spec_2_3(refresh: str | None) -> None:
    tokens = IssuedTokens(access_token="A" * 43, refresh_token=refresh)
    answer = replies.token_answer(tokens)
    body = json.loads(answer.body)
    expected = {"access_token": "A" * 43, "token_type": "Bearer", "expires_in": 3600}
    assert body == (expected if refresh is None else {**expected, "refresh_token": refresh})
    assert answer.status == 200 and answer.header("content-type") == "application/json"


def test_a_field_added_to_the_answer_makes_the_check_fail(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a spec author meets: a field added to `token_fields` and not to the fast path is
    caught by the first test above, on the plainest answer."""
    written_once = replies.token_fields
    monkeypatch.setattr(
        replies, "token_fields", lambda tokens: {**written_once(tokens), "scope": "profile"}
    )
    tokens = IssuedTokens(access_token="A" * 43, refresh_token=None)
    assert replies.token_answer(tokens).body != encode_json(replies.token_fields(tokens))
