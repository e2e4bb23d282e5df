"""Bad input never crashes the server: a 4xx of the right kind, never a 5xx."""

from __future__ import annotations

import pytest

FORM = {"Content-Type": "application/x-www-form-urlencoded"}

CASES = [
    ("POST", "/oauth2/token", b"grant_type=%ff%fe", FORM, 400),
    ("POST", "/oauth2/token", b"\xff\xfe\x00", FORM, 400),
    ("POST", "/oauth2/token", b"a=" + b"x" * 100_000, FORM, 413),
    ("POST", "/oauth2/token", b"grant_type=x&grant_type=y", FORM, 400),
    ("POST", "/oauth2/token", b'{"grant_type": "x"}', {"Content-Type": "application/json"}, 400),
    ("POST", "/oauth2/token", b"grant_type=x", {"Content-Type": "text/plain"}, 400),
    ("POST", "/oauth2/token", b"grant_type=x", {}, 400),
    ("POST", "/oauth2/token", b"grant_type=authorization_code&code=%00", FORM, 400),
    ("POST", "/oauth2/revoke", b"token=%ff", FORM, 400),
    ("POST", "/oauth2/revoke", b"token=a&token=b&client_id=c&client_secret=d", FORM, 400),
    ("POST", "/oauth2/userinfo", b"access_token=%ff", FORM, 400),
    ("GET", "/oauth2/userinfo?access_token=%ff", b"", {}, 400),
    ("GET", "/oauth2/userinfo?access_token=a&access_token=b", b"", {}, 400),
    ("GET", "/oauth2/authorize?client_id=%ff", b"", {}, 400),
    ("GET", "/oauth2/authorize?" + "a=b&" * 5000, b"", {}, 414),
    ("GET", "/login?returnto=%ff", b"", {}, 200),
    ("POST", "/login", b"username=%ff", FORM, 400),
    ("POST", "/login", b"x" * 100_000, FORM, 413),
    ("POST", "/account/applications", b"name=%ff", FORM, 400),
    ("GET", "/oauth2/oob?code=%ff", b"", {}, 400),
    ("PUT", "/oauth2/token", b"", {}, 405),
    ("DELETE", "/oauth2/revoke", b"", {}, 405),
    ("GET", "/user/%ff", b"", {}, 404),
]


@pytest.mark.parametrize(("method", "path", "body", "headers", "status"), CASES)
def test_bad_input_gets_a_clear_4xx(http, method, path, body, headers, status):
    response = http.request(method, path, content=body, headers=headers)
    assert response.status_code == status, response.text[:300]


def test_basic_header_garbage(http):
    for value in ("Basic !!!", "Basic " + "QQ==", "Basic", "Digest x", "Basic w6k6w6k="):
        response = http.post(
            "/oauth2/token",
            data={"grant_type": "refresh_token", "refresh_token": "x"},
            headers={"Authorization": value},
        )
        assert response.status_code in (400, 401), (value, response.text)
