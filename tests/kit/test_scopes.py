"""Granted scopes (a string or MetaBrainz's JSON array) versus requested."""

from __future__ import annotations

import logging

import pytest
from click.testing import CliRunner

from client_kit import Session
from client_kit._cli import cli
from client_kit._tokens import TokenSet
from tests.kit.helpers import CLIENT_ID, CLIENT_SECRET, FakeUI, token_json


@pytest.mark.parametrize(
    "granted", [["musicbrainz:tag"], "musicbrainz:tag"], ids=["json-array", "string"]
)
def test_token_set_holds_what_was_granted(granted) -> None:
    tokens = TokenSet.from_response(
        token_json("a", scope=granted), requested_scopes=("profile", "musicbrainz:tag")
    )
    assert tokens.scopes == ("musicbrainz:tag",)


def test_a_login_says_when_the_grant_differs(meta_profile, memory_store, mock, caplog) -> None:
    mock.post("/oauth2/token").respond(
        200, json=token_json("access-1", "refresh-1", scope=["musicbrainz:tag"])
    )
    ui = FakeUI(lines=["C"])
    profile = meta_profile.replace(allows_oob=True)  # a bare pasted code, for brevity
    session = Session(profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=ui)
    events = []
    with caplog.at_level(logging.WARNING, "client_kit.session"):
        tokens = session.login(["profile", "tag"], method="oob", on_event=events.append)
    assert tokens.scopes == ("musicbrainz:tag",)
    assert session.status()["scopes"] == ["tag"]
    said = [m for m in ui.shown if "granted other scopes" in m]
    assert said and "not granted: profile" in said[0]
    assert any("not granted: profile" in r.getMessage() for r in caplog.records)
    differ = next(e for e in events if e.kind == "scopes_differ")
    assert differ.requested == ("profile", "musicbrainz:tag")
    assert differ.granted == ("musicbrainz:tag",)


def test_no_word_when_the_grant_is_what_was_asked(mb_profile, memory_store, mock) -> None:
    mock.post("/oauth2/token").respond(200, json=token_json("a", "r", scope="profile tag"))
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice"})
    ui = FakeUI(lines=["C"])
    Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=ui).login(
        ["tag", "profile"], method="oob"
    )
    assert not [m for m in ui.shown if "granted other scopes" in m]


def test_the_cli_tells_the_user(tmp_path, monkeypatch, mock) -> None:
    for name, value in {
        "MB_OAUTH_SERVICE": "https://mb.test",
        "MB_OAUTH_CLIENT_ID": CLIENT_ID,
        "MB_OAUTH_CLIENT_SECRET": CLIENT_SECRET,
        "MB_OAUTH_STORE": f"file:{tmp_path / 'store'}",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }.items():
        monkeypatch.setenv(name, value)
    mock.post("/oauth2/token").respond(200, json=token_json("a", "r", scope=["profile"]))
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice"})
    result = CliRunner().invoke(
        cli, ["login", "--oob", "--scope", "profile,tag", "--json"], input="CODE\n"
    )
    assert result.exit_code == 0, result.output
    assert "not granted: tag" in result.stderr
    import json

    data = json.loads(result.stdout)
    assert data["scopes"] == ["profile"] and data["requested_scopes"] == ["profile", "tag"]
