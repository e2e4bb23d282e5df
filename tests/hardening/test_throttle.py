"""The guessing throttle: race-free, and aimed at the attacker, not the victim.

Loopback has a whole /8 of addresses: an "attacker" connects from 127.0.0.2, the rightful
party from 127.0.0.3 (or 127.0.0.1), to the same server.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator

import httpx
import pytest

from reference_server.guard import GuardPolicy
from tests.support.user_agent import find_form

from .helpers import App, World, align_to_window, exchange, revoke

GUARD = GuardPolicy()
ATTACKER, OWNER = "127.0.0.2", "127.0.0.3"


def _client(site: World, address: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address, verify=site.server.ssl_context())
    return httpx.Client(base_url=site.server.base_url, transport=transport)


@pytest.fixture
def user(site: World) -> Iterator[tuple[str, str]]:
    name, password = f"target-{secrets.token_hex(3)}", secrets.token_urlsafe(12)
    site.server.add_user(name, password)
    yield name, password


def _log_in(http: httpx.Client | None, name: str, password: str, **kwargs) -> httpx.Response:
    assert http is not None
    csrf = find_form(http.get("/login").text, "login-form").csrf_token
    return http.post(
        "/login", data={"username": name, "password": password, "csrf_token": csrf}, **kwargs
    )


async def _burst(site: World, name: str, passwords: list[str]) -> list[int]:
    """All the logins at once, from one client with one login form."""
    limits = httpx.Limits(max_connections=len(passwords))
    async with httpx.AsyncClient(
        base_url=site.server.base_url, verify=site.server.ssl_context(), limits=limits, timeout=60
    ) as http:
        csrf = find_form((await http.get("/login")).text, "login-form").csrf_token
        answers = await asyncio.gather(
            *(
                http.post("/login", data={"username": name, "password": p, "csrf_token": csrf})
                for p in passwords
            )
        )
    return [a.status_code for a in answers]


def test_concurrent_guesses_cannot_outrun_the_throttle(site: World, user: tuple[str, str]):
    """150 logins at once (149 wrong, the right one last): at most the free ones are checked.

    The guarantee: a password is checked only after its slot is counted, so no burst gets more
    than `free` checks; the right password is refused (429) unless it came among those.
    """
    name, password = user
    align_to_window(site.http())
    guesses = [f"wrong-{i}" for i in range(149)] + [password]
    statuses = asyncio.run(_burst(site, name, guesses))
    checked = [s for s in statuses if s != 429]
    assert len(checked) <= GUARD.free, f"{len(checked)} passwords were checked"
    assert set(checked) <= {401, 303}, set(statuses)
    assert statuses.count(303) <= 1


def test_failures_from_one_address_do_not_lock_out_the_owner(site: World, user: tuple[str, str]):
    name, password = user
    with _client(site, ATTACKER) as attacker, _client(site, OWNER) as owner:
        answers = [_log_in(attacker, name, f"guess-{i}").status_code for i in range(GUARD.free + 1)]
        assert answers[: GUARD.free] == [401] * GUARD.free
        assert answers[GUARD.free] == 429, "the guessing address waits"
        assert _log_in(attacker, name, password).status_code == 429, "even with the password"
        assert _log_in(owner, name, password).status_code == 303, "the owner logs in"


def test_the_delay_grows_instead_of_a_fixed_lock(site: World, user: tuple[str, str]):
    name, _ = user
    with _client(site, ATTACKER) as attacker:
        for i in range(GUARD.free):
            assert _log_in(attacker, name, f"guess-{i}").status_code == 401
        waits = []
        for _ in range(3):
            refused = _log_in(attacker, name, "again")
            assert refused.status_code == 429
            wait = int(refused.headers["retry-after"])
            waits.append(wait)
            attacker.post("/_test/clock", data={"advance": str(wait)})
            assert _log_in(attacker, name, "after-waiting").status_code == 401
        assert waits[1] > waits[0] and waits[2] > waits[1], waits


def test_bad_secrets_for_a_public_client_do_not_lock_out_its_users(site: World):
    """Every authorization URL shows a public client_id: guessing it must not stop the app."""
    app = site.new_app("public")
    forged = App(app.client_id, secrets.token_urlsafe(24), app.redirect_uri, app.type)
    with _client(site, ATTACKER) as attacker, _client(site, OWNER) as owner:
        align_to_window(attacker)
        for _ in range(GUARD.free):
            assert revoke(attacker, forged, "t").status_code == 401
        assert revoke(attacker, forged, "t").status_code == 429
        assert revoke(attacker, app, "t").status_code == 429, "a guess is not confirmed"
        assert revoke(owner, app, "t").status_code == 200
        assert exchange(owner, app, "no-such-code").json()["error"] == "invalid_grant"
