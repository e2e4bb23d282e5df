"""Brute force at the token and revoke endpoints (RFC 6749 2.3.1, 10.10).

The server's guard allows 20 failures per source address and client, then answers 429 with
Retry-After (60 s, doubling with each further failure). Each test uses fresh applications so
the delay it causes touches nobody else (test_throttle.py: other addresses are untouched).
"""

from __future__ import annotations

import secrets

import httpx
import pytest

from tests.support.user_agent import find_form

from .helpers import App, World, align_to_window, exchange, refresh, revoke, tokens, works

LIMIT = 20


def _bad_secret(app: App) -> App:
    return App(app.client_id, secrets.token_urlsafe(24), app.redirect_uri, app.type)


def _assert_locked_out(answer: httpx.Response) -> int:
    assert answer.status_code == 429, answer.text
    body = answer.json()
    assert body["error"] in ("invalid_client", "slow_down", "temporarily_unavailable")
    assert body.get("error_description"), "a clear error says why and for how long"
    retry = answer.headers.get("retry-after", "")
    assert retry.isdigit() and 0 < int(retry) <= 3600, retry
    return int(retry)


def _healthy(client: httpx.Client, app: App) -> bool:
    """Client authentication works: revoking an unknown token answers 200."""
    return revoke(client, app, "no-such-token").status_code == 200


@pytest.mark.parametrize("endpoint", ["token", "revoke"])
def test_repeated_bad_secrets_lock_out_that_client_only(
    site: World, client: httpx.Client, endpoint: str
):
    attacked, bystander = site.new_app(), site.new_app()
    align_to_window(client)
    forged = _bad_secret(attacked)
    for attempt in range(LIMIT):
        if endpoint == "token":
            answer = exchange(client, forged, "some-code")
        else:
            answer = revoke(client, forged, "some-token")
        assert answer.status_code == 401, (attempt, answer.text)
        assert answer.json()["error"] == "invalid_client"
    retry = _assert_locked_out(exchange(client, forged, "some-code"))
    # Locked out even with the right secret (else the lockout would confirm a guess) ...
    _assert_locked_out(revoke(client, attacked, "some-token"))
    # ... while another client is not slowed at all.
    assert _healthy(client, bystander)
    # When the delay ends the client is back.
    client.post("/_test/clock", data={"advance": str(retry)})
    assert _healthy(client, attacked)


def test_guessing_codes_locks_out_the_guessing_client(site: World, client: httpx.Client):
    guesser, bystander = site.new_app("public"), site.new_app("public")
    align_to_window(client)
    for attempt in range(LIMIT):
        answer = exchange(client, guesser, secrets.token_urlsafe(24))
        assert answer.status_code == 400, (attempt, answer.text)
        assert answer.json()["error"] == "invalid_grant"
    _assert_locked_out(exchange(client, guesser, secrets.token_urlsafe(24)))
    assert _healthy(client, bystander)


def test_guessing_refresh_tokens_locks_out_the_guessing_client(
    site: World, client: httpx.Client, agent
):
    guesser, bystander = site.new_app("public"), site.new_app("public")
    held = tokens(client, agent, bystander)
    align_to_window(client)
    for attempt in range(LIMIT):
        answer = refresh(client, guesser, secrets.token_urlsafe(24))
        assert answer.status_code == 400, (attempt, answer.text)
    _assert_locked_out(refresh(client, guesser, secrets.token_urlsafe(24)))
    # The bystander keeps refreshing and using its tokens.
    renewed = refresh(client, bystander, held["refresh_token"])
    assert renewed.status_code == 200
    assert works(client, renewed.json()["access_token"])


def test_unknown_client_ids_get_a_clear_error_every_time(site: World, client: httpx.Client):
    """Guessing client ids: each try is refused as invalid_client, never a 5xx."""
    align_to_window(client)
    for _ in range(LIMIT + 5):
        stranger = App(secrets.token_urlsafe(24), secrets.token_urlsafe(24), "x", "confidential")
        answer = revoke(client, stranger, "t")
        assert answer.status_code == 401 and answer.json()["error"] == "invalid_client"
    # One unknown id tried over and over is locked out like a real one.
    stranger = App("guessed-client-id", "guess", "x", "confidential")
    answers = [revoke(client, stranger, "t").status_code for _ in range(LIMIT + 1)]
    assert answers[:LIMIT] == [401] * LIMIT and answers[LIMIT] == 429


def test_password_guessing_on_the_login_form_is_throttled(site: World, client: httpx.Client):
    """RFC 6749 10.10: the server MUST prevent guessing of resource owner passwords too.

    Like client credentials: after 20 failures for one user name in the window the login
    form refuses further tries for that name (429 with Retry-After); other users log in.
    """
    name, password = f"guessed-{secrets.token_hex(3)}", secrets.token_urlsafe(12)
    site.server.add_user(name, password)
    align_to_window(client)
    victim, bystander = site.agent(name, password), site.agent()
    try:
        for attempt in range(LIMIT):
            page = victim.http.get("/login").text
            csrf = find_form(page, "login-form").csrf_token
            answer = victim.http.post(
                "/login",
                data={"username": name, "password": f"guess-{attempt}", "csrf_token": csrf},
            )
            assert answer.status_code == 401, (attempt, answer.status_code)
        csrf = find_form(victim.http.get("/login").text, "login-form").csrf_token
        answer = victim.http.post(
            "/login", data={"username": name, "password": "one-more-guess", "csrf_token": csrf}
        )
        assert answer.status_code == 429, f"guess {LIMIT + 1} was answered {answer.status_code}"
        retry = answer.headers.get("retry-after", "")
        assert retry.isdigit() and int(retry) > 0
        bystander.log_in()  # another user is not locked out
        client.post("/_test/clock", data={"advance": retry})
        victim.log_in()  # and the user is back once the window ends
    finally:
        victim.close()
        bystander.close()
