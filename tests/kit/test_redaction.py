"""Secrets never reach log output, whoever logs them."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys

import httpx
import pytest

from client_kit import _logs, redaction
from client_kit._logs import redact
from client_kit._session import Session
from client_kit._storage import FileStore, StoreKey
from tests.kit.cli_process import LoginProcess, headless_env, run_cli
from tests.kit.conftest import PASSWORD
from tests.kit.formdriver import FormDriver
from tests.kit.helpers import (
    CLIENT_SECRET,
    FakeUI,
    http_get,
    query,
    redirect_with,
    token_json,
)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("POST body grant_type=refresh_token&refresh_token=R3fr3sh&client_id=x", "R3fr3sh"),
        ("GET /callback?code=C0de123&state=St4te", "C0de123"),
        ("GET /callback?code=C0de123&state=St4te", "St4te"),
        ('{"access_token": "Acc3ss", "token_type": "Bearer"}', "Acc3ss"),
        ("headers [(b'Authorization', b'Bearer Acc3ssT0k3n')]", "Acc3ssT0k3n"),
        ("Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
        ("client_secret=S3cr3t&x=1", "S3cr3t"),
        ("code_verifier=V3rifier", "V3rifier"),
        (
            "framing allowed: {'set-cookie': 'session=.eJyrVkpOLFKyUkpS0lFKTM5Oz.Z; Path=/'}",
            ".eJyrVkpOLFKyUkpS0lFKTM5Oz.Z",
        ),
        ("Cookie: mbsess=Anon1234; csrftoken=CsRf5678", "Anon1234"),
        ("Cookie: mbsess=Anon1234; csrftoken=CsRf5678", "CsRf5678"),
    ],
)
def test_patterns(text, secret) -> None:
    masked = redact(text)
    assert secret not in masked and redaction.MASK in masked


def test_registered_values_are_masked_anywhere() -> None:
    _logs.register("opaque-value-without-a-field-name")
    assert "opaque" not in redact("weird place: opaque-value-without-a-field-name!")
    assert redact("nothing secret here") == "nothing secret here"


@pytest.mark.parametrize(
    "logger_name",
    ["httpx", "httpcore.http11", "httpcore.connection", "client_kit.session", "hpack.hpack"],
)
def test_library_loggers_are_filtered_at_debug(logger_name, all_logs) -> None:
    _logs.install()
    logging.getLogger(logger_name).debug("sent %s", "Authorization: Bearer T0k3nV4lue")
    assert all_logs.lines and "T0k3nV4lue" not in all_logs.lines[-1]


def test_a_whole_mocked_login_leaves_no_secret_in_logs(session, mock, all_logs) -> None:
    logging.getLogger("httpx").setLevel(logging.DEBUG)
    mock.post("/oauth2/token").respond(200, json=token_json("Acc3ssT0k3nXYZ", "R3fr3shXYZ"))
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice"})
    session.ui = FakeUI(
        browser=lambda url: http_get(
            redirect_with(url, code="C0deXYZ123", state=query(url)["state"])
        )
    )
    session.login()
    session.refresh()
    with httpx.Client(auth=session.auth()) as http:
        http.get("https://mb.test/oauth2/userinfo")
    logging.getLogger("client_kit.refresh").debug("token was %s", "R3fr3shXYZ")
    text = "\n".join(all_logs.lines)
    assert "HTTP Request" in text
    for secret in ("Acc3ssT0k3nXYZ", "R3fr3shXYZ", "C0deXYZ123", CLIENT_SECRET):
        assert secret not in text


@pytest.fixture
def every_logger_at_debug(all_logs):
    manager = logging.Logger.manager
    saved = {
        name: logger.level
        for name, logger in manager.loggerDict.items()
        if isinstance(logger, logging.Logger)
    }
    for name in saved:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield all_logs
    finally:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


def test_full_session_at_debug_leaks_nothing(
    ref_server, tmp_path, every_logger_at_debug, capfd, monkeypatch
) -> None:
    import client_kit._twostep as session_module

    verifiers: list[str] = []
    real_build = session_module.build_request

    def recording_build(*args, **kwargs):
        request = real_build(*args, **kwargs)
        verifiers.append(request.code_verifier)
        return request

    monkeypatch.setattr(session_module, "build_request", recording_build)
    codes: list[str] = []

    def browser(url: str) -> None:
        target = FormDriver(ref_server.base_url, ref_server.ca_file, "alice", PASSWORD).authorize(
            url
        )
        codes.append(query(target)["code"])
        http_get(target)

    app = ref_server.loopback_app
    ui = FakeUI(browser=browser)
    session = Session(
        ref_server.profile(),
        app["client_id"],
        app["client_secret"],
        store=FileStore(tmp_path / "tokens"),
        ui=ui,
    )
    first = session.login(["profile", "email"])
    second = session.refresh()
    with httpx.Client(auth=session.auth(), verify=session.profile.ssl_context()) as http:
        assert http.get(session.profile.userinfo_url).status_code == 200
    session.logout()
    session.close()

    secrets = {
        "client secret": app["client_secret"],
        "password": PASSWORD,
        **{f"code {i}": code for i, code in enumerate(codes)},
        **{f"verifier {i}": v for i, v in enumerate(verifiers)},
        "first access token": first.access_token,
        "first refresh token": first.refresh_token,
        "second access token": second.access_token,
        "second refresh token": second.refresh_token,
    }
    assert codes and verifiers and all(v and len(v) >= 8 for v in secrets.values())
    out, err = capfd.readouterr()
    logs = "\n".join(every_logger_at_debug.lines)
    assert "HTTP Request: POST" in logs and "httpcore" in logs  # DEBUG logging did happen
    everything = {"logs": logs, "stdout": out, "stderr": err, "shown": "\n".join(ui.shown)}
    for where, text in everything.items():
        for what, value in secrets.items():
            assert value not in text, f"{what} in {where}"


#: mb-oauth, recording the PKCE verifiers it makes (so that the test can look for them)
RECORDING_CLI = [
    sys.executable,
    "-c",
    "import os, client_kit._twostep as s\n"
    "real = s.build_request\n"
    "def build(*a, **k):\n"
    "    r = real(*a, **k)\n"
    "    with open(os.environ['KIT_TEST_VERIFIERS'], 'a') as f: f.write(r.code_verifier + '\\n')\n"
    "    return r\n"
    "s.build_request = build\n"
    "from client_kit._cli import main; main()\n",
]


def test_cli_session_with_debug_leaks_nothing(ref_server, tmp_path) -> None:
    app = ref_server.loopback_app
    env = headless_env(ref_server, app, tmp_path)
    env["KIT_TEST_VERIFIERS"] = str(tmp_path / "verifiers")
    key = StoreKey(ref_server.profile().base_url, app["client_id"])
    store = FileStore(tmp_path / "store")
    outputs: list[str] = []

    login = LoginProcess(env, "--no-browser", cli=[*RECORDING_CLI, "--debug"])
    try:
        url = login.authorization_url()
        target = FormDriver(ref_server.base_url, ref_server.ca_file, "alice", PASSWORD).authorize(
            url
        )
        code_value = query(target)["code"]
        assert http_get(target)[0] == 200  # the listener gets the code, as from a browser
        code, stdout, stderr = login.finish()
    finally:
        login.kill()
    assert code == 0, stderr
    outputs += [stdout, stderr]
    first = store.load(key)
    for command in (["refresh"], ["whoami"], ["status", "--json"]):
        result = run_cli(env, "--debug", *command)
        assert result.returncode == 0, result.stderr
        outputs += [result.stdout, result.stderr]
    second = store.load(key)
    result = run_cli(env, "--debug", "logout")
    assert result.returncode == 0 and "Logged out" in result.stderr
    outputs += [result.stdout, result.stderr]
    assert store.load(key) is None

    verifiers = (tmp_path / "verifiers").read_text().split()
    secrets = {
        "client secret": app["client_secret"],
        "password": PASSWORD,
        "code": code_value,
        "verifier": verifiers[0],
        "first access token": first.access_token,
        "first refresh token": first.refresh_token,
        "second access token": second.access_token,
        "second refresh token": second.refresh_token,
    }
    assert len(verifiers) == 1 and first.access_token != second.access_token
    text = "\n".join(outputs)
    assert "HTTP Request: POST" in text and "httpcore" in text  # --debug did log
    for what, value in secrets.items():
        assert value and value not in text, what


# --- the one mask -----------------------------------------------------------------------------

SAME_START = ("AbCdEfGh-first-secret-0123456789", "AbCdEfGh-other-secret-9876543210")


def test_a_mask_shows_no_part_of_a_secret_nor_its_length() -> None:
    """`***-` and four hex digits of a keyed fingerprint, whatever the secret."""
    for secret in (*SAME_START, "short12", "x" * 500):
        shown = redaction.mask(secret)
        assert re.fullmatch(r"\*\*\*-[0-9a-f]{4}", shown), shown
        assert secret[:4] not in shown


def test_a_reader_can_tell_two_masked_values_apart() -> None:
    """The same value gets the same mask; two values differ even where they start alike (the
    former `AbCd…(32)` showed both the same)."""
    masker = redaction.Redactor(key=b"a fixed key, 16+")
    first, other = SAME_START
    assert masker.mask(first) == masker.mask(first) != masker.mask(other)
    assert masker.mask(first) != redaction.Redactor(key=b"another key, 16+").mask(first)


def test_a_learnt_value_is_masked_in_its_encoded_forms_as_itself() -> None:
    masker = redaction.Redactor()
    secret = 's3cr3t/with+odd&chars"<'
    masker.learn(secret, encoded=True)
    for form in redaction.encoded_forms(secret):
        assert masker.redact(f"[{form}]") == f"[{masker.mask(secret)}]", form


def test_the_processes_of_a_run_mask_alike() -> None:
    """A process started with the shared key masks a value as its parent does."""
    env = dict(os.environ)
    redaction.share_mask_key(env)
    script = "from client_kit.redaction import mask; print(mask('a-secret-of-the-run'))"
    child = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert child.stdout.strip() == redaction.mask("a-secret-of-the-run")


def test_a_log_shows_a_registered_secret_as_its_mask() -> None:
    _logs.register("another-opaque-value-nobody-names")
    shown = redact("it was another-opaque-value-nobody-names, then code=C0de-in-a-log")
    assert shown == (
        f"it was {redaction.mask('another-opaque-value-nobody-names')}, "
        f"then code={redaction.mask('C0de-in-a-log')}"
    )
