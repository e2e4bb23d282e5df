"""Text from a service, made safe to show: no control characters, bounded length.

A service's words reach a person's terminal or window (``error_description``, an error page,
user information, granted scope names). A hostile or broken service could put terminal
escape sequences in them (clear the screen, retitle the window, print a fake prompt),
bidirectional controls that make the text read otherwise than it is, or megabytes of it.
Every such text goes through :func:`clean` where it enters the kit, so exceptions, events
and the command line's output carry only what a person can read.
"""

from __future__ import annotations

import re
import unicodedata

#: the most characters of one service text the kit shows (a description, a page's message)
DEFAULT_LIMIT = 300
#: ... of a name (a user name from the user information)
NAME_LIMIT = 100
#: ... of a word (an ``error`` code, a scope, a field name): they are short
WORD_LIMIT = 60
#: escape sequences (CSI ``ESC [``, OSC ``ESC ]``, DCS, APC, PM, SOS and two-byte ones),
#: removed whole so that their parameters ("[2J") do not show either
_ESCAPES = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]?              # CSI: ESC [ params intermediates final
    | \x9b[0-?]*[ -/]*[@-~]?              # CSI, 8-bit
    | (?:\x1b[\]P^_X]|[\x90\x98\x9d\x9e\x9f])  # OSC, DCS, SOS, PM, APC (7- or 8-bit) ...
      [^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?    # ... up to BEL or ST
    | \x1b[ -/]*[0-~]?                    # any other ESC sequence
    """,
    re.VERBOSE,
)
#: control characters that only separate words: kept, then turned into one space
_SPACES = frozenset("\t\n\r\v\f")


def clean(text: object, limit: int = DEFAULT_LIMIT) -> str:
    """``text`` on one line, without control characters, cut to ``limit`` characters.

    Escape sequences are removed whole; line breaks, tabs and runs of spaces become one
    space; other control, format and bidirectional characters are dropped. A cut text says
    so ("… (cut: N characters in all)"), so that a person knows there was more.
    """
    value = text if isinstance(text, str) else str(text)
    head = value[: limit * 4 + 64]  # a 5 MB description is not scanned whole
    kept = " ".join("".join(char for char in _ESCAPES.sub("", head) if _shown(char)).split())
    if len(kept) <= limit and len(head) == len(value):
        return kept
    return f"{kept[:limit].rstrip()}… (cut: {len(value)} characters in all)"


def _shown(char: str) -> bool:
    if char in _SPACES:
        return True
    # Cc: C0 and C1 controls, DEL. Cf: format characters, which include the bidirectional
    # embeddings, overrides, isolates and marks, zero-width characters and the byte-order
    # mark. Co, Cs, Cn: nothing to read.
    return not unicodedata.category(char).startswith("C")
