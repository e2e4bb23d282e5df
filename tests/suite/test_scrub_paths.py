"""The masker's two ways through a text give the same text: a small index finds the places to
look at with a regular expression, a large one steps through every place
(steps/safety/secret_forms.py). Forms that overlap, nest, share first characters or sit back
to back are where the two could part."""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import given, settings

from steps.safety import secret_forms
from steps.safety.secret_forms import EncodedSecrets

#: Few characters, so that values share prefixes and texts hold values, parts and overlaps.
ALPHABET = "ab%=+/_-"
values = st.lists(st.text(ALPHABET, min_size=4, max_size=10), min_size=1, max_size=8)
pieces = st.lists(st.text(ALPHABET + " \"'<>", max_size=12), max_size=12)


def masked_both_ways(known: list[str], text: str) -> tuple[str, str]:
    small = EncodedSecrets(key=b"k")
    small.learn(*known)
    large = EncodedSecrets(key=b"k")
    large.learn(*known)
    large._finder_stale = False  # as an index past FINDER_KEYS: every place is stepped through
    assert small._current_finder() is not None and large._current_finder() is None
    return small.scrub(text), large.scrub(text)


@settings(max_examples=300, deadline=None)
@given(values, pieces, st.data())
def test_a_small_index_masks_as_stepping_through_every_place(known, filler, data) -> None:
    planted = [data.draw(st.sampled_from(known)) for _ in filler]
    text = "".join(piece + value for piece, value in zip(filler, planted, strict=True))
    by_finder, by_steps = masked_both_ways(known, text)
    assert by_finder == by_steps


def test_a_large_index_does_without_the_expression(monkeypatch) -> None:
    monkeypatch.setattr(secret_forms, "FINDER_KEYS", 3)
    masker = EncodedSecrets()
    masker.learn("first-secret", "second-secret")
    assert masker._current_finder() is None
    assert "first-secret" not in masker.scrub("x first-secret y second-secret")


def test_a_value_learnt_after_a_scrub_is_masked_by_the_next() -> None:
    masker = EncodedSecrets()
    masker.learn("first-secret")
    assert masker.scrub("second-secret") == "second-secret"
    masker.learn("second-secret")
    assert "second-secret" not in masker.scrub("a second-secret b")
