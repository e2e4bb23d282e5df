"""Registered applications on their pages (spec 2.1): registration, edit, delete, secret
reset and the confirmations that name the application, on the real server over TLS."""

from __future__ import annotations

import secrets

import httpx
import pytest

from steps.http.html import inputs, soup, text_of
from tests.support.user_agent import UserAgent, find_form
from tests.support.world import App

from .flows import authorize_params, exchange, obtain_code, refresh, works


@pytest.fixture
def logged_in(user: UserAgent) -> UserAgent:
    user.log_in()
    return user


def _csrf(agent: UserAgent, path: str = "/account/applications") -> str:
    return next(value for name, value in inputs(agent.http.get(path).text) if name == "csrf_token")


def _register(
    agent: UserAgent, kind: str = "public", **fields: str
) -> tuple[httpx.Response, dict[str, str]]:
    form = find_form(agent.http.get("/account/applications").text, "register-form")
    data = {
        "csrf_token": form.csrf_token,
        "name": f"App {secrets.token_hex(3)}",
        "type": kind,
        "redirect_uri": "http://localhost/callback" if kind == "public" else "https://c.example/cb",
        **fields,
    }
    return agent.http.post(form.action, data=data), data


def _new_app(agent: UserAgent, kind: str = "public") -> tuple[App, str]:
    answer, data = _register(agent, kind)
    assert answer.status_code == 200, answer.text[:300]
    client_id, secret = (
        text_of(answer.text, "#new-client-id"),
        text_of(answer.text, "#new-client-secret"),
    )
    assert client_id and secret, answer.text[:2000]
    return App(client_id, secret, data["redirect_uri"], kind), data["name"]


def _accessible_names(page: str, label: str) -> list[str]:
    """What a screen reader says for each `label` control: its text and the hidden words."""
    controls = soup(page).select(":has(> span.visually-hidden)")
    return [text for node in controls if (text := node.get_text()).startswith(label)]


def _row(page: str, selector: str, words: str) -> str:
    """The table row a selector picks whose text holds these words, as HTML."""
    return str(next(row for row in soup(page).select(selector) if words in row.get_text()))


class TestRegistrationForm:
    def test_a_failed_registration_keeps_the_form(self, logged_in):
        answer, _ = _register(
            logged_in, "public", name="Kept <name>", redirect_uri="http://evil.example/cb"
        )
        assert answer.status_code == 400
        assert 'value="Kept &lt;name&gt;"' in answer.text
        assert 'value="http://evil.example/cb"' in answer.text
        assert '<option value="public" selected>' in answer.text

    def test_duplicate_application_names_are_refused_on_the_page(self, logged_in):
        _, name = _new_app(logged_in)
        answer, _ = _register(logged_in, "public", name=name.upper())
        assert answer.status_code == 400
        assert "already" in answer.text


class TestConfirmations:
    def test_revoke_access_asks_first_and_names_the_application(self, world, logged_in, http):
        client, name = _new_app(logged_in)
        tokens = exchange(http, client, obtain_code(logged_in, client)).json()
        row = _row(logged_in.http.get("/account/authorized").text, "tr.authorization", name)
        summary = text_of(row, "details.confirm > summary")
        assert summary is not None and summary.startswith("Revoke access")
        assert f"{name} will lose this access" in soup(row).get_text()
        assert f"Revoke access of {name}" in _accessible_names(row, "Revoke access")
        assert f"Yes, revoke access of {name}" in _accessible_names(row, "Yes, revoke access")
        fields = dict(inputs(row))
        done = logged_in.http.post("/account/authorized/revoke", data=fields)
        assert (done.status_code, done.headers["location"]) == (
            303,
            "/account/authorized?revoked=1",
        )
        assert not works(http, tokens["access_token"])
        assert 'id="notice"' in logged_in.http.get(done.headers["location"]).text

    def test_reset_and_delete_ask_first_and_name_the_application(self, logged_in):
        client, name = _new_app(logged_in)
        row = _row(
            logged_in.http.get("/account/applications").text, "tr.application", client.client_id
        )
        assert len(soup(row).select("details.confirm")) == 2
        for label in ("Reset secret", "Delete", "Yes, reset secret", "Yes, delete"):
            assert f"{label} of {name}" in _accessible_names(row, label), label
        assert f"Edit {name}" in _accessible_names(row, "Edit")

    def test_a_reload_after_reset_does_not_reset_again(self, logged_in, http):
        client, _ = _new_app(logged_in, "confidential")
        data = {"csrf_token": _csrf(logged_in), "client_id": client.client_id}
        first = logged_in.http.post("/account/applications/reset-secret", data=data)
        assert first.status_code == 303
        secret = text_of(logged_in.http.get(first.headers["location"]).text, "#new-client-secret")
        assert secret
        for _ in range(2):  # reloads of the page the redirect led to
            assert secret not in logged_in.http.get("/account/applications").text
        answer = http.post(
            "/oauth2/revoke",
            data={"token": "x", "client_id": client.client_id, "client_secret": secret},
        )
        assert answer.status_code == 200  # still the secret of the one reset

    def test_the_shown_secret_is_shown_once_even_to_a_replayed_cookie(self, logged_in):
        """ "Shown once" holds at the server: the sealed cookie replayed in the same session
        (a browser that kept it, a copy of the cookie jar) shows the secret no more."""
        client, _ = _new_app(logged_in, "confidential")
        data = {"csrf_token": _csrf(logged_in), "client_id": client.client_id}
        first = logged_in.http.post("/account/applications/reset-secret", data=data)
        sealed = logged_in.http.cookies.get("__Host-mb-flash")
        assert sealed
        shown = logged_in.http.get(first.headers["location"]).text
        assert text_of(shown, "#new-client-secret")
        logged_in.http.cookies.set("__Host-mb-flash", sealed, domain="127.0.0.1")
        replayed = logged_in.http.get(first.headers["location"]).text
        assert 'id="new-client-secret"' not in replayed

    def test_the_shown_secret_belongs_to_its_session(self, world, logged_in):
        client, _ = _new_app(logged_in, "confidential")
        data = {"csrf_token": _csrf(logged_in), "client_id": client.client_id}
        first = logged_in.http.post("/account/applications/reset-secret", data=data)
        sealed = logged_in.http.cookies.get("__Host-mb-flash")
        assert sealed and client.client_secret not in sealed
        other = world.agent()
        try:
            other.log_in()
            other.http.cookies.set("__Host-mb-flash", sealed, domain="127.0.0.1")
            assert 'id="new-client-secret"' not in other.http.get(first.headers["location"]).text
        finally:
            other.close()


class TestEditAndDelete:
    def _edit(self, agent: UserAgent, client: App, **fields: str):
        path = f"/account/applications/{client.client_id}/edit"
        form = find_form(agent.http.get(path).text, "edit-form")
        return agent.http.post(form.action, data={"csrf_token": form.csrf_token, **fields})

    def test_rename_and_new_redirect_uri(self, logged_in, http):
        client, name = _new_app(logged_in, "confidential")
        tokens = exchange(http, client, obtain_code(logged_in, client)).json()
        pending = obtain_code(logged_in, client, scope="email")  # on its way to the old URI
        answer = self._edit(
            logged_in, client, name=name + " renamed", redirect_uri="https://new.example/cb"
        )
        assert (answer.status_code, answer.headers["location"]) == (
            303,
            "/account/applications?updated=1",
        )
        listing = logged_in.http.get(answer.headers["location"]).text.replace("<wbr>", "")
        assert f"{name} renamed" in listing and "https://new.example/cb" in listing
        assert exchange(http, client, pending).status_code == 400  # the old URI's code ended
        assert works(http, tokens["access_token"])  # issued tokens keep working
        moved = App(client.client_id, client.client_secret, "https://new.example/cb", "x")
        params = authorize_params(moved)
        assert 'id="consent-form"' in logged_in.open_authorize(params).text  # asked again

    def test_edit_refuses_bad_input_and_keeps_it(self, logged_in):
        client, _ = _new_app(logged_in, "confidential")
        answer = self._edit(logged_in, client, name="Kept", redirect_uri="http://plain.example/")
        assert answer.status_code == 400
        assert (
            'id="error-message"' in answer.text and 'value="http://plain.example/"' in answer.text
        )

    def test_delete_revokes_everything_issued_to_the_application(self, logged_in, http):
        client, name = _new_app(logged_in, "public")
        tokens = exchange(http, client, obtain_code(logged_in, client)).json()
        data = {"csrf_token": _csrf(logged_in), "client_id": client.client_id}
        answer = logged_in.http.post("/account/applications/delete", data=data)
        assert (answer.status_code, answer.headers["location"]) == (
            303,
            "/account/applications?deleted=1",
        )
        assert not works(http, tokens["access_token"])
        assert refresh(http, client, tokens["refresh_token"]).status_code in (400, 401)
        assert client.client_id not in logged_in.http.get("/account/applications").text
        assert name not in soup(logged_in.http.get("/account/authorized").text).get_text()
        location = logged_in.http.get("/oauth2/authorize", params=authorize_params(client))
        assert location.status_code == 400  # unknown client: shown on our page

    def test_another_user_cannot_edit_or_delete(self, world, logged_in, server):
        client, _ = _new_app(logged_in, "confidential")
        server.add_user("ivan", "ivan-password-1")
        ivan = UserAgent(server.base_url, server.ssl_context(), "ivan", "ivan-password-1")
        try:
            ivan.log_in()
            assert (
                ivan.http.get(f"/account/applications/{client.client_id}/edit").status_code == 404
            )
            data = {"csrf_token": _csrf(ivan), "client_id": client.client_id}
            assert ivan.http.post("/account/applications/delete", data=data).status_code == 404
            edit = {**data, "name": "Mine now", "redirect_uri": "https://ivan.example/cb"}
            path = f"/account/applications/{client.client_id}/edit"
            assert ivan.http.post(path, data=edit).status_code == 404
        finally:
            ivan.close()
        assert client.client_id in logged_in.http.get("/account/applications").text

    def test_edit_and_delete_need_the_csrf_token(self, logged_in):
        client, _ = _new_app(logged_in, "confidential")
        data = {"csrf_token": "forged", "client_id": client.client_id}
        assert logged_in.http.post("/account/applications/delete", data=data).status_code == 403
        path = f"/account/applications/{client.client_id}/edit"
        edit = {**data, "name": "X", "redirect_uri": "https://x.example/cb"}
        assert logged_in.http.post(path, data=edit).status_code == 403
        assert client.client_id in logged_in.http.get("/account/applications").text
