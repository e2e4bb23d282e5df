"""A user's website, e-mail address and gender cannot fake the pages either.

The attack: a website of `https://x.example/<U+202E>gnp.exe` showed on the public profile,
which the consent page links to, as `https://x.example/exe.png`. These fields now follow the
name rules' characters (no bidirectional control, invisible, control or unassigned character:
reference_server/names.py), each refusal naming its field; a value stored before the rules is
defused where it is shown, and isolated (`<bdi>`).
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from reference_server import accounts
from reference_server.launcher import ServerError
from reference_server.storage import Store
from steps.http.html import soup

from .helpers import World

SPOOFS = [  # (character, why it is refused)
    ("\u202e", "bidirectional"),  # right-to-left override
    ("\u2067", "bidirectional"),  # right-to-left isolate
    ("\u200b", "invisible"),  # zero width space
    ("\u00ad", "invisible"),  # soft hyphen
    ("\x1b", "control"),
]
FIELDS = {  # field: a valid value, and where a character goes in it
    "website": ("https://x.example/{}gnp.exe", "website"),
    "email": ("bob{}@example.org", "email"),
    "gender": ("m{}ale", "gender"),
}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "server.sqlite3")
    yield opened
    opened.close()


@pytest.mark.parametrize("field", list(FIELDS))
@pytest.mark.parametrize(("char", "reason"), SPOOFS)
def test_a_profile_field_refuses_what_a_name_refuses(
    store: Store, field: str, char: str, reason: str
) -> None:
    template, _ = FIELDS[field]
    with pytest.raises(accounts.AccountError) as refused:
        accounts.add_user(
            store, "bob", "a long enough password", 0, **{field: template.format(char)}
        )
    assert refused.value.field == field
    assert f"U+{ord(char):04X}" in str(refused.value) and reason in str(refused.value)
    assert accounts.user_by_name(store, "bob") is None


def test_plain_values_are_still_accepted(store: Store) -> None:
    user = accounts.add_user(
        store,
        "bob",
        "a long enough password",
        0,
        website="https://bücher.example/café?x=1",
        email="bob@example.org",
        gender="non-binary",
    )
    assert user.website == "https://bücher.example/café?x=1"


def test_the_command_line_names_the_character(site: World) -> None:
    with pytest.raises(ServerError, match="U\\+202E"):
        site.server.add_user(
            f"bob-{secrets.token_hex(3)}",
            "a long enough password",
            website="https://x.example/\u202egnp.exe",
        )


def _stored(site: World, name: str, **values: str) -> None:
    """Give a user values the rules now refuse, as an older database may hold."""
    db = sqlite3.connect(site.database, timeout=10)
    try:
        with db:
            for column, value in values.items():
                db.execute(f"UPDATE users SET {column} = ? WHERE name = ?", (value, name))  # noqa: S608
    finally:
        db.close()


def test_a_stored_value_is_defused_and_isolated_on_the_profile(site: World) -> None:
    name = f"eve-{secrets.token_hex(3)}"
    site.server.add_user(name, "a long enough password", website="https://x.example/")
    _stored(site, name, website="https://x.example/\u202egnp.exe", gender="\u202eelam")
    with site.http() as http:
        page = http.get("/user/" + quote(name, safe="")).text
    assert "\u202e" not in page
    cells = {
        row.th.get_text(): row.td for row in soup(page).select("#profile tr") if row.th and row.td
    }
    website, gender = cells["Website"], cells["Gender"]
    assert website.select_one("bdi") is not None and gender.select_one("bdi") is not None
    assert website.get_text() == "https://x.example/\ufffdgnp.exe"
    assert gender.get_text() == "\ufffdelam"
