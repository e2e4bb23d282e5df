"""The deployment's words made safe to show (steps/safety/text.py), in each place the suite
writes them: every control, format and separator character escaped, line breaks and tabs kept,
pytest's own colours kept on their way to the terminal, a JSON file's escapes visible."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from steps.reports.redact import last_pass, mask_file
from steps.reports.stream import MaskedTee
from steps.safety.text import json_escaped, shown, shown_tree, terminal_safe

ATTACK = "\x1b[2J\x1b]0;pwned\x07\x1b[32mCONFORMS\x1b[0m \u202egnp.exe\u202c\u200b \x9b2J\u2028x"


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("\x1b[2J", "\\x1b[2J"),
        ("\x07", "\\x07"),
        ("\x9b", "\\x9b"),
        ("\u202e", "\\u202e"),
        ("\u2066", "\\u2066"),
        ("\u200b", "\\u200b"),
        ("\ufeff", "\\ufeff"),
        ("\u2028", "\\u2028"),
        ("\x7f", "\\x7f"),
        ("\udcff", "\\udcff"),
        ("a\r\nb", "a\nb"),
        ("a\rb", "a\\x0db"),
    ],
)
def test_each_kind_of_character_a_terminal_acts_on_is_escaped(raw: str, escaped: str) -> None:
    assert shown(raw) == escaped


def test_readable_text_is_kept_as_it_is() -> None:
    text = "Les données\tde l’utilisateur\n日本語 ✗ … «ok»"
    assert shown(text) == text


def test_no_control_character_is_left_in_an_attack() -> None:
    safe = shown(ATTACK)
    assert all(c.isprintable() for c in safe)
    assert "CONFORMS" in safe and "\\x1b[32m" in safe


def test_on_the_way_to_a_terminal_only_colours_pass() -> None:
    ours = "\x1b[32m1 passed\x1b[0m"
    assert terminal_safe(ours) == ours
    assert terminal_safe(ours + ATTACK) == ours + shown(ATTACK).replace(
        "\\x1b[32m", "\x1b[32m"
    ).replace("\\x1b[0m", "\x1b[0m")
    assert "\x1b[2J" not in terminal_safe(ATTACK) and "\x07" not in terminal_safe(ATTACK)


def test_a_json_file_keeps_the_escape_visible_once_decoded() -> None:
    text = json.dumps({"message": "a\u202eb"}, ensure_ascii=False)
    assert json.loads(json_escaped(text))["message"] == "a\\u202eb"


def test_every_string_of_a_tree_is_shown_safely() -> None:
    tree = {"m\x1b": ["\u202e", {"k": "\x07"}], "n": 3}
    assert shown_tree(tree) == {"m\\x1b": ["\\u202e", {"k": "\\x07"}], "n": 3}


def test_pytests_output_reaches_the_terminal_and_its_log_with_colours_only() -> None:
    out, log = io.StringIO(), io.StringIO()
    tee = MaskedTee([], out, log)
    tee.feed("\x1b[31mF\x1b[0m " + ATTACK + "\n")
    assert out.getvalue() == log.getvalue()
    assert "\x1b[31mF\x1b[0m" in out.getvalue() and "\x1b[2J" not in out.getvalue()


@pytest.mark.parametrize("name", ["report.html", "junit.xml", "results.json", "summary.txt"])
def test_the_last_pass_escapes_what_a_report_file_holds_raw(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    text = json.dumps({"m": ATTACK}, ensure_ascii=False) if name.endswith(".json") else ATTACK
    path.write_text(text)
    assert mask_file(path, last_pass([]))
    written = path.read_text()
    assert not any(c in written for c in "\x1b\x07\x9b\u202e\u202c\u200b\u2028")
