"""The deployment's words, made safe to show on a terminal and in a text report.

Everything a deployment sends (an `error_description`, a page, a header) may end up in an
assertion message, pytest's diff of two values, the terminal summary, report.html, JUnit XML
or results.json. A hostile deployment can put terminal escape sequences in it (clear the
screen, retitle the window, print a green "CONFORMS" in the middle of a failing run) or
bidirectional controls that make a text read otherwise than it is. So before any such text is
shown, `shown` writes every control, format (bidirectional, zero-width) and separator character
as a visible escape (`\\x1b`, `\\u202e`): the reader sees that the deployment sent it, and no
terminal acts on it. Line breaks and tabs stay (pages and tracebacks have lines); a CR LF pair
becomes a line break.

The kit's `client_kit.safe_text.clean` answers another need (one short line for a person, cut),
so the suite escapes rather than removes, and keeps the whole text: it is evidence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Any

#: Characters kept as they are though their category is a control's.
_KEPT = frozenset("\n\t")
#: Categories never shown raw: controls (C0, C1, DEL), format characters (the bidirectional
#: embeddings, overrides, isolates and marks, zero-width characters, the byte-order mark),
#: surrogates (undecodable bytes), and the line and paragraph separators.
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
#: Only the characters worth a look are checked one by one: ASCII controls and everything
#: outside printable ASCII (a fast path for the common text).
_SUSPECT = re.compile(r"[^\x20-\x7e\n\t]")
#: Select Graphic Rendition (colours, bold): the one escape sequence pytest and the runner write
#: themselves, allowed through on the way to a terminal (`terminal_safe`).
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def _escape(char: str) -> str:
    if char in _KEPT or unicodedata.category(char) not in _ESCAPED_CATEGORIES:
        return char
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _escape_match(match: re.Match[str]) -> str:
    return _escape(match.group(0))


def shown(text: str) -> str:
    """The text with every control, format and separator character written as an escape
    (line breaks and tabs kept; CR LF becomes a line break)."""
    if not _SUSPECT.search(text):
        return text
    return _SUSPECT.sub(_escape_match, text.replace("\r\n", "\n"))


def terminal_safe(text: str) -> str:
    """`shown`, except for the colour sequences (SGR) pytest and the runner write themselves:
    for output that goes to a terminal and keeps its colours."""
    if "\x1b" not in text:
        return shown(text)
    parts = _SGR.split(text)
    colours = _SGR.findall(text)
    out = [shown(parts[0])]
    for colour, part in zip(colours, parts[1:], strict=True):
        out += [colour, shown(part)]
    return "".join(out)


def shown_tree(value: Any, show: Callable[[str], str] = shown) -> Any:
    """A JSON-shaped value with every string (keys too) made safe to show."""
    if isinstance(value, str):
        return show(value)
    if isinstance(value, dict):
        return {show(k) if isinstance(k, str) else k: shown_tree(v, show) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [shown_tree(v, show) for v in value]
    return value


def json_escaped(text: str) -> str:
    """For the text of a JSON file: a raw control or format character written as an escaped
    backslash (`\\\\u202e`), so that a reader of the JSON gets the visible escape, not the
    character (JSON escapes nothing above U+001F by itself)."""
    if not _SUSPECT.search(text):
        return text
    return _SUSPECT.sub(lambda m: _escape(m.group(0)).replace("\\", "\\\\"), text)
