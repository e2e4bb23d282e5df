"""Say what is happening and for how long; re-prompt a mistyped code."""

from __future__ import annotations

import io
from urllib.parse import parse_qs

import httpx

from client_kit._flow import LoginEvent
from client_kit._ui import Console
from tests.kit.helpers import token_json
from tests.kit.test_cli import env, run  # noqa: F401 - the CLI's environment fixture


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def countdown(monkeypatch, stream: io.StringIO, accepts_paste: bool = False) -> str:
    monkeypatch.setattr("sys.stderr", stream)
    console = Console()
    console.event(LoginEvent("waiting", remaining=300, accepts_paste=accepts_paste))
    for left in (300, 299, 61):
        console.event(LoginEvent("tick", remaining=left))
    console.event(LoginEvent("received"))
    return stream.getvalue()


def test_a_terminal_gets_a_countdown(monkeypatch) -> None:
    shown = countdown(monkeypatch, Terminal())
    assert "5:00 left" in shown and "4:59 left" in shown and "1:01 left" in shown
    assert shown.endswith("\r")  # the line is cleared once the browser came back


def test_a_pipe_gets_no_countdown(monkeypatch) -> None:
    assert countdown(monkeypatch, io.StringIO()) == ""


def test_no_countdown_while_the_user_may_be_typing(monkeypatch) -> None:
    assert countdown(monkeypatch, Terminal(), accepts_paste=True) == ""


def test_the_cli_says_how_long_it_waits(env, mock) -> None:  # noqa: F811
    result = run("login", "--no-browser", "--timeout", "1")
    assert result.exit_code == 6
    assert "Waiting up to 1 s for the login to finish in the browser (Ctrl-C" in result.stderr
    assert " left" not in result.stderr  # not a terminal: no countdown
    assert "within 1 seconds" in result.stderr


def test_a_mistyped_oob_code_is_asked_for_again(env, mock) -> None:  # noqa: F811
    def token(request: httpx.Request) -> httpx.Response:
        code = parse_qs(request.content.decode())["code"][0]
        if code != "GOOD-CODE":
            return httpx.Response(400, json={"error": "invalid_grant"})
        return httpx.Response(200, json=token_json("access-1", "refresh-1", scope="profile"))

    route = mock.post("/oauth2/token").mock(side_effect=token)
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice"})
    result = run("login", "--oob", input="GOOD-C0DE\nGOOD-CODE\n")
    assert result.exit_code == 0, result.stderr
    assert "did not accept that code; check it and paste it again" in result.stderr
    assert result.stderr.count("Paste the code") == 2 and route.call_count == 2
    assert "Logged in as alice" in result.stdout


def test_three_wrong_codes_end_the_login(env, mock) -> None:  # noqa: F811
    mock.post("/oauth2/token").respond(400, json={"error": "invalid_grant"})
    result = run("login", "--oob", input="A\nB\nC\nD\n")
    assert result.exit_code == 3 and result.stderr.count("Paste the code") == 3
