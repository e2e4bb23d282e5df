"""The forms a secret takes on its way into a report, and a masker that knows them all.

A deployment may echo what it received in any encoding: a client secret sent in a form body
can come back percent-encoded, JSON-escaped or base64-encoded inside a larger blob. Masking
the raw value alone left such echoes readable in report.html and results.json. So every value
the suite knows as a secret is masked in all the forms it usually takes:

- raw, percent-encoded (`quote`, `quote_plus`, lower-case hex, encoded twice), HTML-escaped and
  JSON-escaped (ASCII-only or not, `/` escaped as `\\/`), as `client_kit.redaction` lists them
  and beyond;
- base64 and base64url at each of the three alignments a value can have inside a longer
  encoded text, of the value as it is and as a URL or a form body carries it (an echo of a
  whole request encodes the secret in its percent-encoded form): the characters that only
  those bytes decide (a value that starts
  one or two bytes into a group of three changes the group's first characters, and its last
  bytes share a group with what follows; those few edge characters stay).

A run learns a thousand values and more (codes, tokens), each in a dozen forms: looking for
each form in each text in turn, as the kit's `Redactor.scrub` does, would cost the run more
than its checks. `EncodedSecrets` therefore indexes the forms by their first characters and
reads each text once. Where the index is small (the reports' last pass knows a few secrets and
reads megabytes), a regular expression of the index's first characters, shaped as a trie,
finds the places to look at in C, four times faster than stepping through the text in Python;
past a few hundred first characters the expression costs more than the steps it saves.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Iterator
from typing import TypeAlias
from urllib.parse import quote, quote_plus

from client_kit.redaction import Redactor, encoded_forms

_HEX_ESCAPE = re.compile(r"%[0-9A-F]{2}")
#: The most first characters the reports' expression is built of (see the module's text).
FINDER_KEYS = 256


def base64_cores(data: bytes) -> set[str]:
    """The base64 and base64url characters decided by `data` alone, at each alignment."""
    cores: set[str] = set()
    for skip in range(3):
        body = data[skip:]
        whole = len(body) - len(body) % 3
        if whole < 3:
            continue
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            cores.add(encode(body[:whole]).decode("ascii"))
    return cores


def secret_forms(secret: str) -> set[str]:
    """Every form of `secret` the masker looks for (the value itself included)."""
    percent = quote(secret, safe="")
    escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
    forms = encoded_forms(secret) | {
        _HEX_ESCAPE.sub(lambda m: m.group(0).lower(), percent),
        quote(percent, safe=""),
        escaped,
        escaped.replace("/", "\\/"),
        json.dumps(secret)[1:-1].replace("/", "\\/"),
    }
    sent = {secret, percent, quote_plus(secret)}  # as sent in a URL or a form body
    for text in sent:
        forms |= base64_cores(text.encode("utf-8", "surrogatepass"))
    return forms


class EncodedSecrets(Redactor):
    """The kit's masker (`Redactor`: the same mask, the same field patterns) that learns every
    value in all its `secret_forms`, each masked as the value is, and scrubs a text in one
    reading, however many values it knows."""

    def __init__(self, *, min_length: int = 4, key: bytes | None = None) -> None:
        super().__init__(min_length=min_length, key=key)
        self._forms_lock = threading.Lock()
        #: A form's first `min_length` characters -> (form, mask), longest form first.
        self._index: dict[str, list[tuple[str, str]]] = {}
        self._known: set[str] = set()
        #: Where a form may start (`_starts`), for a small index; rebuilt after `learn`.
        self._finder: re.Pattern[str] | None = None
        self._finder_stale = False

    def learn(self, *values: str | None, encoded: bool = False) -> None:
        """Remember values (in every form, whatever `encoded` says) to mask wherever they
        appear."""
        with self._forms_lock:
            for value in values:
                if not value or len(value) < self.min_length or value in self._known:
                    continue
                self._known.add(value)
                shown = self.mask(value)
                for form in secret_forms(value):
                    if len(form) >= self.min_length:
                        self._add(form, shown)
                self._finder_stale = True

    def _add(self, form: str, shown: str) -> None:
        bucket = self._index.setdefault(form[: self.min_length], [])
        if all(known != form for known, _ in bucket):
            bucket.append((form, shown))
            bucket.sort(key=lambda entry: len(entry[0]), reverse=True)

    def scrub(self, text: str) -> str:
        """Every learnt form in text replaced by its value's mask (the longest form wins where
        two start at the same place)."""
        index, width = self._index, self.min_length
        if not index or len(text) < width:
            return text
        pieces: list[str] = []
        start = 0
        for position in self._starts(text):
            if position < start:  # inside a form just replaced
                continue
            bucket = index.get(text[position : position + width])
            found = bucket and next((e for e in bucket if text.startswith(e[0], position)), None)
            if found:
                pieces += [text[start:position], found[1]]
                start = position + len(found[0])
        if not pieces:
            return text
        return "".join(pieces) + text[start:]

    def _starts(self, text: str) -> Iterator[int]:
        """The places of text where a form may start: where one of the index's first
        characters does (small index), or every place."""
        finder = self._current_finder()
        if finder is None:
            return iter(range(len(text) - self.min_length + 1))
        return (match.start() for match in finder.finditer(text))

    def _current_finder(self) -> re.Pattern[str] | None:
        with self._forms_lock:
            if self._finder_stale:
                keys = list(self._index)
                self._finder = _trie_pattern(keys) if len(keys) <= FINDER_KEYS else None
                self._finder_stale = False
            return self._finder


_Trie: TypeAlias = dict[str, "_Trie"]


def _trie_pattern(keys: list[str]) -> re.Pattern[str]:
    """A lookahead matching where any of the keys starts, its alternatives shaped as a trie
    (one branch per character, not per key: the engine rejects a place at its first
    character instead of trying every key there)."""
    trie: _Trie = {}
    for key in keys:
        node = trie
        for char in key:
            node = node.setdefault(char, {})
        node[""] = {}
    return re.compile(f"(?={_branches(trie)})")


def _branches(node: _Trie) -> str:
    paths = [re.escape(char) + _branches(child) for char, child in sorted(node.items()) if char]
    if "" in node:  # a key ends here
        return f"(?:{'|'.join(paths)})?" if paths else ""
    return paths[0] if len(paths) == 1 else f"(?:{'|'.join(paths)})"
