"""The form parser of urlencoded.py reads every body exactly as urllib's parse_qsl would."""

from __future__ import annotations

import random
from urllib.parse import parse_qsl

from reference_server.urlencoded import _split

PIECES = ["a", "b", "=", "&", "%", "+", "2F", "41", "C3", "A9", "E9", "z", "%00"]
FIXED = ["", "&", "a", "a=", "=b", "a=b&&c=d", "a=b=c", "x+y=1%2B2", "%41=%42", "a=%E9", "a=%zz"]


def _read(parse, text: str) -> object:
    try:
        return parse(text)
    except (UnicodeDecodeError, ValueError) as error:
        return type(error).__name__


def test_the_form_parser_agrees_with_parse_qsl() -> None:
    chance = random.Random(10)
    texts = FIXED + [
        "".join(chance.choice(PIECES) for _ in range(chance.randint(0, 14))) for _ in range(5000)
    ]
    reference = lambda text: parse_qsl(text, keep_blank_values=True, errors="strict")  # noqa: E731
    differ = [t for t in texts if _read(_split, t) != _read(reference, t)]
    assert not differ, differ[:5]
    assert _split("r=https%3A%2F%2Fc.example%2Fcb&s=x+y") == [
        ("r", "https://c.example/cb"),
        ("s", "x y"),
    ]
