"""The name rules themselves (reference_server/names.py), without a server: what `clean`
accepts and refuses, and how `shown` defuses a name stored before the rules."""

from __future__ import annotations

import pytest

from reference_server.names import LIMIT, NameRefused, clean, shown

GREEK = "\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac"  # one script, not Latin


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("  Tagger   Pro ", "Tagger Pro"),
        ("\uff34\uff41\uff47\uff47\uff45\uff52", "Tagger"),  # full-width
        ("\u2113ibrary", "library"),  # script small l: a compatibility form
        ("\u6771\u4eac\u30bf\u30ef\u30fc Tagger", "\u6771\u4eac\u30bf\u30ef\u30fc Tagger"),
        ("\uc11c\uc6b8 Seoul", "\uc11c\uc6b8 Seoul"),  # Hangul with Latin
        (
            "\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac",
            "\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac",
        ),
        ("Don\u02bct Panic", "Don\u02bct Panic"),  # a modifier letter belongs to no script
        ("x" * LIMIT, "x" * LIMIT),
    ],
)
def test_accepted_names_are_normalised(typed: str, stored: str) -> None:
    assert clean(typed, "a name") == stored


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("Tagger\u202e", "bidirectional"),
        ("Tagger\u2066", "bidirectional"),
        ("Tag\u2060ger", "invisible"),
        ("Tagger\ufe0f\U000e0041", "invisible"),  # a tag character (Cf)
        ("Tagger\t", "control"),
        ("Tagger\u2029", "control"),
        ("Tagger\ue000", "private use"),
        ("Tagger\U000e01f0", "unassigned"),
        ("P\u0430yPal", "Cyrillic and Latin"),
        ("\u0420\u0430\u0443\u0440\u0430l", "Cyrillic and Latin"),
        ("\u00b5Torrent", "Greek and Latin"),  # the micro sign is a Greek mu after NFKC
        ("\u05e2\u05d1 Tagger", "Hebrew and Latin"),
        ("x" * (LIMIT + 1), f"1 to {LIMIT}"),
        ("", f"1 to {LIMIT}"),
    ],
)
def test_refused_names_say_why(typed: str, reason: str) -> None:
    with pytest.raises(NameRefused, match=reason):
        clean(typed, "a name")


def test_a_stored_name_is_defused_when_shown() -> None:
    stored = "Tagger\u202e\u200b\n" + "e" + "\u0301" * 9 + "x" * 80
    text = shown(stored)
    assert text.startswith("Tagger\ufffd\ufffd\ufffde\u0301\u0301\u0301x")
    assert len(text) == LIMIT and text.endswith("\u2026")
    assert shown("Tagger") == "Tagger"
