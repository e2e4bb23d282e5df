"""The service's own pages: logins, CSRF, headers, layout (header, 404, title, favicon) and
forms that keep what was typed. Registered applications: test_applications.py."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from steps.http.html import inputs, soup, text_of
from tests.support.user_agent import find_form

from .flows import authorize_params


def _csrf(page: str) -> str:
    """The page's (first) CSRF token."""
    return next(value for name, value in inputs(page) if name == "csrf_token")


PAGES = [
    "/",
    "/account/authorized",
    "/account/applications",
    "/user/alice",
]


@pytest.fixture
def logged_in(user):
    user.log_in()
    return user


class TestHeaders:
    @pytest.mark.parametrize("path", PAGES)
    def test_every_page_forbids_framing_referrers_and_caching(self, logged_in, path):
        response = logged_in.http.get(path)
        assert response.status_code == 200
        headers = response.headers
        assert headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["referrer-policy"] == "no-referrer"
        assert headers["cache-control"] == "no-store"

    @pytest.mark.parametrize("path", PAGES)
    def test_no_external_assets(self, logged_in, path):
        page = logged_in.http.get(path).text
        addresses = [node.get(a) for a in ("src", "href") for node in soup(page).select(f"[{a}]")]
        assert not [a for a in addresses if str(a).startswith(("http:", "https:", "//"))]
        assert "<script" not in page

    @pytest.mark.parametrize("path", ["/", "/login", "/user/alice"])
    def test_pages_seen_logged_out_too(self, user, path):
        response = user.http.get(path)
        assert response.status_code == 200
        assert response.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]

    def test_error_pages_carry_the_headers_too(self, http):
        response = http.get("/oauth2/authorize")
        assert response.status_code == 400
        assert response.headers["x-frame-options"] == "DENY"


class TestSessions:
    def test_session_cookie_is_secure_httponly_samesite(self, world, user):
        user.http.get("/login")
        cookie = user.http.get("/login").headers.get("set-cookie") or ""
        first = world.agent()
        header = first.http.get("/login").headers["set-cookie"]
        first.close()
        for flag in ("Secure", "HttpOnly", "SameSite=lax", "Path=/"):
            assert flag.lower() in header.lower()
        assert header.startswith("__Host-")
        assert cookie == ""  # a known session is not re-issued

    def test_login_rotates_the_session(self, world, user):
        user.http.get("/login")
        before = user.http.cookies.get("__Host-mb-session")
        user.log_in()
        assert user.http.cookies.get("__Host-mb-session") not in (None, before)

    def test_wrong_password_is_refused(self, world, user):
        form = find_form(user.http.get("/login").text, "login-form")
        response = user.http.post(
            form.action,
            data={"username": "alice", "password": "nope", "csrf_token": form.csrf_token},
        )
        assert response.status_code == 401
        assert "Incorrect username or password" in response.text

    def test_login_without_csrf_token_is_refused(self, world, user):
        user.http.get("/login")
        response = user.http.post("/login", data={"username": "alice", "password": world.password})
        assert response.status_code == 403
        assert user.http.get("/account/authorized").status_code == 303  # still logged out

    @pytest.mark.parametrize(
        "path",
        ["/account/authorized", "/account/applications", "/account/applications/some id/edit"],
    )
    def test_account_pages_send_a_stranger_to_log_in_and_back(self, user, path):
        response = user.http.get(path)
        assert response.status_code == 303
        assert response.headers["location"] == "/login?returnto=" + quote(path)

    @pytest.mark.parametrize(
        "target",
        ["//evil.example/", "https://evil.example/", "/\\evil.example", "javascript:alert(1)"],
    )
    def test_login_never_returns_to_another_site(self, world, user, target):
        page = user.http.get("/login", params={"returnto": target})
        form = find_form(page.text, "login-form")
        response = user.http.post(
            form.action,
            data={"username": "alice", "password": world.password, "csrf_token": form.csrf_token},
        )
        assert response.headers["location"] == "/"

    def test_logout_ends_the_session(self, logged_in):
        page = logged_in.http.get("/")
        token = _csrf(page.text)
        assert logged_in.http.post("/logout", data={"csrf_token": token}).status_code == 303
        assert logged_in.http.get("/account/applications").status_code == 303

    def test_logout_needs_the_csrf_token(self, logged_in):
        assert logged_in.http.post("/logout", data={"csrf_token": "x"}).status_code == 403
        assert logged_in.http.get("/account/applications").status_code == 200


class TestRegisteredApplications:
    def test_list_shows_client_ids(self, world, logged_in):
        page = logged_in.http.get("/account/applications").text
        for client in (world.web, world.installed, world.other):
            assert client.client_id in page
        for client in (world.web, world.installed, world.other):
            assert client.client_secret not in page  # shown once, at registration only

    def register(self, user, **fields):
        form = find_form(user.http.get("/account/applications").text, "register-form")
        return user.http.post(form.action, data={"csrf_token": form.csrf_token, **fields})

    def test_register_shows_the_secret_once_and_it_works(self, world, logged_in, http):
        response = self.register(
            logged_in, name="New app", type="public", redirect_uri="http://localhost/cb"
        )
        assert response.status_code == 200
        client_id = text_of(response.text, "#new-client-id")
        secret = text_of(response.text, "#new-client-secret")
        assert client_id and secret
        revoke = http.post(
            "/oauth2/revoke", data={"token": "t", "client_id": client_id, "client_secret": secret}
        )
        assert revoke.status_code == 200
        assert secret not in logged_in.http.get("/account/applications").text

    @pytest.mark.parametrize(
        ("app_type", "uri"),
        [
            ("confidential", "javascript:alert(1)"),
            ("confidential", "https://a.example/#x"),
            ("confidential", "urn:ietf:wg:oauth:2.0:oob"),
            ("bogus", "https://a.example/"),
            ("public", "https://user:pw@a.example/"),
        ],
    )
    def test_register_refuses_bad_input(self, logged_in, app_type, uri):
        response = self.register(logged_in, name="Bad", type=app_type, redirect_uri=uri)
        assert response.status_code == 400
        assert 'id="error-message"' in response.text

    def test_register_needs_the_csrf_token(self, logged_in):
        response = logged_in.http.post(
            "/account/applications",
            data={
                "csrf_token": "forged",
                "name": "X",
                "type": "public",
                "redirect_uri": "http://localhost/x",
            },
        )
        assert response.status_code == 403

    def test_owner_can_reset_the_secret(self, world, logged_in, http):
        response = self.register(
            logged_in, name="Resettable", type="confidential", redirect_uri="https://r.example/cb"
        )
        client_id = text_of(response.text, "#new-client-id")
        old = text_of(response.text, "#new-client-secret")
        assert client_id and old
        csrf = _csrf(response.text)
        reset = logged_in.http.post(
            "/account/applications/reset-secret", data={"csrf_token": csrf, "client_id": client_id}
        )
        assert (reset.status_code, reset.headers["location"]) == (303, "/account/applications")
        shown = logged_in.http.get("/account/applications")
        new = text_of(shown.text, "#new-client-secret")
        assert new and new != old
        reloaded = logged_in.http.get("/account/applications")  # a reload: no new reset
        assert 'id="new-client-secret"' not in reloaded.text

        def status(secret: str) -> int:
            return http.post(
                "/oauth2/revoke",
                data={"token": "t", "client_id": client_id, "client_secret": secret},
            ).status_code

        assert (status(old), status(new)) == (401, 200)


def test_oob_page_shows_no_text_from_the_query(http):
    """Only a code the server issued is shown: no content spoofing."""
    response = http.get("/oauth2/oob", params={"code": "<b>x</b>", "state": "\"'><i>"})
    assert response.status_code == 400
    assert "x</b>" not in response.text and "&lt;b&gt;" not in response.text
    assert "<i>" not in response.text and 'id="oob-code"' not in response.text


def test_public_profile_page(http):
    assert "alice" in http.get("/user/alice").text
    assert http.get("/user/nobody").status_code == 404


class TestHeaderAndLayout:
    @pytest.mark.parametrize(
        "path",
        [
            "/oauth2/authorize",  # an authorization error page
            "/oauth2/oob?code=unknown",  # the out-of-band page's error
            "/no/such/page",  # the 404 page
            "/user/nobody",
        ],
    )
    def test_the_header_knows_the_user_on_every_page(self, world, logged_in, path):
        answer = logged_in.http.get(path)
        assert answer.status_code in (400, 404)
        assert f'id="viewer"><bdi class="name">{world.username}</bdi></a>' in answer.text
        assert '<a href="/login">Log in</a>' not in answer.text
        assert 'action="/logout"' in answer.text

    def test_oob_page_with_a_code_knows_the_user(self, world, logged_in):
        params = authorize_params(world.installed, redirect_uri="urn:ietf:wg:oauth:2.0:oob")
        location = logged_in.authorize(params)
        page = logged_in.http.get(location)
        assert 'id="oob-code"' in page.text
        assert f'id="viewer"><bdi class="name">{world.username}</bdi></a>' in page.text

    def test_a_real_404_page(self, http):
        answer = http.get("/no/such/page")
        assert answer.status_code == 404
        assert answer.headers["content-type"].startswith("text/html")
        assert "<h1>Page not found</h1>" in answer.text
        assert '<a href="/">home page</a>' in answer.text
        assert '<a href="/login">Log in</a>' in answer.text
        assert answer.headers["x-frame-options"] == "DENY"

    @pytest.mark.parametrize("path", ["/", "/login", "/user/alice", "/no/such/page"])
    def test_no_doubled_title(self, http, path):
        title = text_of(http.get(path).text, "title")
        assert title is not None
        assert title.count("MusicBrainz OAuth") == 1, title

    def test_a_favicon(self, http):
        answer = http.get("/favicon.ico")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("image/svg+xml")
        assert answer.text.startswith("<svg")
        assert '<link rel="icon" href="/favicon.ico"' in http.get("/").text


class TestKeptForms:
    def test_a_failed_login_keeps_the_user_name(self, user):
        form = find_form(user.http.get("/login").text, "login-form")
        answer = user.http.post(
            form.action,
            data={"username": "alice", "password": "wrong", "csrf_token": form.csrf_token},
        )
        assert answer.status_code == 401
        assert soup(answer.text).select_one('#username[value="alice"]')
        assert 'value="wrong"' not in answer.text  # never the password
