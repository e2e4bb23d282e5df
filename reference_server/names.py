"""What a name shown on a page may hold: nothing that can fake the text around it.

An application's name is the first thing the consent page shows, next to its owner's account
name; a name must not be able to rewrite that label. So a name is normalised with NFKC
(full-width and other compatibility forms become plain letters: "Ｔａｇｇｅｒ" is "Tagger"),
runs of spaces become one, and it is refused when it holds:

- a bidirectional control (U+202A-202E, U+2066-2069, U+200E, U+200F, U+061C): it reorders
  the text after it, on the consent page "(registered by ...)" read backwards;
- an invisible character: zero-width ones (U+200B-200D, U+2060, U+FEFF), any other format
  character (Unicode category Cf, such as the soft hyphen), and blanks that draw nothing
  (Hangul fillers, the blank Braille pattern, the combining grapheme joiner);
- a control character (Cc: newline, tab, escape...), a line or paragraph separator, a private
  use, surrogate or unassigned code point;
- more than 3 combining marks in a row: stacked marks draw over the lines around the name;
- letters of more than one script, except Latin with the scripts written alongside it in
  Chinese, Japanese and Korean (Han with Bopomofo, with Hiragana and Katakana, or with Hangul):
  Unicode's "highly restrictive" level (UTS #39 5.2). "Pаypal" with a Cyrillic "а" is refused.
  A name wholly in another script that happens to look like a Latin word ("Рерѕі" in
  Cyrillic) cannot be told apart by rules this small: the owner's account name, shown on a
  line of its own, is what the page asks the person to check;
- more than 64 characters, or none.

Names stored before these rules (an older database) are shown through `shown`, which
replaces each such character with U+FFFD and cuts the name to the limit; pages also isolate
every name in `<bdi>`. The rules of the characters hold for the other text a page shows of a
user (website, e-mail address, gender: `refuse_characters`, `defused`) as well.
"""

from __future__ import annotations

import re
import unicodedata

LIMIT = 64
MAX_MARKS = 3  # combining marks in a row
REPLACEMENT = "\ufffd"

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f"  # Arabic letter mark, left-to-right and right-to-left marks
    "\u202a\u202b\u202c\u202d\u202e"  # embeddings, pop, overrides
    "\u2066\u2067\u2068\u2069"  # isolates
)
ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")
# Letters or marks that draw nothing: Hangul fillers, Khmer inherent vowels, the blank Braille
# pattern, the combining grapheme joiner.
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u17b4\u17b5\u2800\u034f")
_SEPARATORS = frozenset({"Zl", "Zp"})
_UNUSABLE = frozenset({"Co", "Cs", "Cn"})
_MARKS = frozenset({"Mn", "Me"})
_SPACES = re.compile(r" {2,}")

# Scripts, as the first word of a letter's Unicode name; these words name one script.
_SCRIPT_OF_WORD = {
    "CJK": "HAN",
    "IDEOGRAPHIC": "HAN",
    "HIRAGANA": "KANA",
    "KATAKANA": "KANA",
    "KATAKANA-HIRAGANA": "KANA",
}
_NO_SCRIPT = frozenset({"MODIFIER"})  # modifier letters: apostrophe-like, of no one script
_MIXES = (
    frozenset({"LATIN", "HAN", "KANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)


class NameRefused(ValueError):
    """A name that could fake the page it is shown on; the message says why."""


def _described(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" ({name})" if name else "")


def character_problem(char: str) -> str | None:
    """Why one character may not be in a name, or None."""
    category = unicodedata.category(char)
    if char in BIDI_CONTROLS:
        return "a bidirectional control, which reorders the text around the name"
    if char in ZERO_WIDTH or char in BLANKS or category == "Cf":
        return "an invisible character, which makes two different names look alike"
    if category == "Cc" or category in _SEPARATORS:
        return "a control character or line break, which breaks the line the name is on"
    if category in _UNUSABLE:
        return "a private use or unassigned code point, which has no agreed look"
    return None


def script_of(char: str) -> str | None:
    """The script of a letter (by its Unicode name), None for anything else."""
    if not unicodedata.category(char).startswith("L"):
        return None
    word = unicodedata.name(char, "").split(" ", 1)[0]
    if not word or word in _NO_SCRIPT:
        return None
    return _SCRIPT_OF_WORD.get(word, word)


def _scripts_problem(name: str) -> str | None:
    scripts = {s for s in map(script_of, name) if s is not None}
    if len(scripts) <= 1 or any(scripts <= mix for mix in _MIXES):
        return None
    mixed = " and ".join(s.title() for s in sorted(scripts))
    return (
        f"letters of different scripts ({mixed}), which lets one name pass for another "
        "(Latin goes with Chinese, Japanese or Korean only)"
    )


def _marks_in_a_row(name: str) -> int:
    longest = run = 0
    for char in name:
        run = run + 1 if unicodedata.category(char) in _MARKS else 0
        longest = max(longest, run)
    return longest


def refuse_characters(text: str, what: str) -> None:
    """NameRefused naming `what` and the first character `character_problem` refuses: the
    rules of a name's characters, for any text a page shows (a user's website, e-mail)."""
    for char in text:
        problem = character_problem(char)
        if problem:
            raise NameRefused(f"{what} may not hold {_described(char)}: {problem}")


def clean(raw: str, what: str) -> str:
    """The name to store (normalised), or NameRefused naming `what` and the reason."""
    refuse_characters(raw, what)
    name = _SPACES.sub(" ", unicodedata.normalize("NFKC", raw).strip())
    refuse_characters(name, what)  # NFKC can make one (U+FFA0 becomes a Hangul filler)
    if not name or len(name) > LIMIT:
        has = f" (this one has {len(name)})" if name else ""
        raise NameRefused(f"{what} is 1 to {LIMIT} characters{has}")
    if _marks_in_a_row(name) > MAX_MARKS:
        raise NameRefused(
            f"{what} may not stack more than {MAX_MARKS} combining marks on one letter: "
            "they draw over the lines around it"
        )
    problem = _scripts_problem(name)
    if problem:
        raise NameRefused(f"{what} may not mix {problem}")
    return name


def defused(text: str) -> str:
    """Stored text made safe to show, whatever its age: each character `refuse_characters`
    refuses becomes U+FFFD."""
    return "".join(REPLACEMENT if character_problem(char) else char for char in text)


def shown(name: str) -> str:
    """A stored name made safe to show, whatever its age: `defused`, marks past the third in
    a row dropped, and cut to the limit."""
    kept: list[str] = []
    marks = 0
    for char in defused(name):
        marks = marks + 1 if unicodedata.category(char) in _MARKS else 0
        if marks <= MAX_MARKS:
            kept.append(char)
    text = "".join(kept)
    return text if len(text) <= LIMIT else text[: LIMIT - 1] + "\u2026"
