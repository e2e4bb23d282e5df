"""The reports' safety net: no token, code, password or client secret reaches a report file
or the terminal, whether the evidence leaked it or a child process printed it."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from client_kit.redaction import MASK, mask
from steps.reports import finalize_reports, write_reports
from steps.reports.redact import harvest_tokens, last_pass, profile_secrets
from tests.suite.report_data import (
    CATALOGUE,
    CLIENT_SECRET,
    LEAKED_CODE,
    LEAKED_TOKEN,
    PASSWORD,
    profile_file,
    results,
)


def test_leaked_tokens_in_evidence_never_reach_the_reports(tmp_path: Path) -> None:
    write_reports(tmp_path, results(leak=True), CATALOGUE)
    for name in ("verdicts.json", "summary.txt", "report.html"):
        text = (tmp_path / name).read_text()
        assert LEAKED_TOKEN not in text
        assert LEAKED_CODE not in text
    assert MASK in (tmp_path / "report.html").read_text()


def test_safety_net_masks_profile_secrets_in_every_file_but_the_profile(tmp_path: Path) -> None:
    profile = profile_file(tmp_path)
    reports = profile.parent
    basic = base64.b64encode(f"web-id:{CLIENT_SECRET}".encode()).decode()
    (reports / "junit.xml").write_text(
        f"<testcase><failure>password={PASSWORD} secret {CLIENT_SECRET} "
        f"Authorization: Basic {basic}</failure></testcase>"
    )
    (reports / "results.json").write_text(json.dumps(results(leak=True)))
    (reports / "cucumber.json").write_text(json.dumps([{"output": f"token {LEAKED_TOKEN}"}]))
    changed = finalize_reports(reports, profile)
    assert {p.name for p in changed} == {"junit.xml", "results.json", "cucumber.json"}
    for path in changed:
        text = path.read_text()
        for secret in (PASSWORD, CLIENT_SECRET, basic, LEAKED_TOKEN, LEAKED_CODE):
            assert secret not in text, (path.name, secret)
    json.loads((reports / "results.json").read_text())  # still valid JSON
    assert CLIENT_SECRET in profile.read_text()


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("https://client.example/callback?code=AbCdEf0123456789&state=x", "AbCdEf0123456789"),
        ('{"access_token": "tok_0123456789abcdef"}', "tok_0123456789abcdef"),
        ('"{\\"refresh_token\\": \\"r_0123456789abcdef\\"}"', "r_0123456789abcdef"),
        ("{&quot;access_token&quot;: &quot;h_0123456789&quot;}", "h_0123456789"),
        ("Authorization: Bearer b_0123456789abcdefgh", "b_0123456789abcdefgh"),
        ("returnto=%2Fx%3Fcode%3DQwErTy0987654321", "QwErTy0987654321"),
    ],
)
def test_values_after_secret_keys_are_masked_without_knowing_them(text: str, secret: str) -> None:
    masked = last_pass([]).redact(text)
    assert secret not in masked and mask(secret) in masked


@pytest.mark.parametrize(
    "text",
    [
        'WWW-Authenticate: Bearer realm="musicbrainz", error="invalid_token"',
        "A Bearer token sent over plain HTTP is ignored",
        '{"token_type": "Bearer", "expires_in": 3600}',
        "code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "https://client.example/callback?code=***-3f9a&state=x",
        '{"access_token": "***-3f9a", "refresh_token": "***-0b1c"}',
        "Cookie: session=***-3f9a; csrf=***-0b1c",
        "Authorization: Bearer ***-3f9a",
    ],
)
def test_harmless_text_is_left_alone(text: str) -> None:
    """Prose, public values, and values masked already (by the evidence) stay as they are."""
    assert last_pass([]).redact(text) == text


def test_secrets_are_collected_from_profile_and_evidence() -> None:
    profile = {
        "user": {"password": PASSWORD},
        "clients": {"web": {"client_id": "web-id", "client_secret": CLIENT_SECRET}},
    }
    assert {PASSWORD, CLIENT_SECRET} <= profile_secrets(profile)
    assert {LEAKED_TOKEN, LEAKED_CODE} <= harvest_tokens(results(leak=True))
    assert harvest_tokens(results(leak=False)) == set()


def test_masked_tee_masks_secrets_split_across_chunks() -> None:
    import io

    from steps.reports.stream import MaskedTee

    out, log = io.StringIO(), io.StringIO()
    tee = MaskedTee([CLIENT_SECRET], out, log)
    half = len(CLIENT_SECRET) // 2
    tee.feed(f"E   Client(client_secret='{CLIENT_SECRET[:half]}")
    assert out.getvalue() == ""  # an unfinished line waits for the rest
    tee.feed(f"{CLIENT_SECRET[half:]}')\n...")
    tee.flush()
    assert CLIENT_SECRET not in out.getvalue()
    expected = f"E   Client(client_secret='{mask(CLIENT_SECRET)}')\n..."
    assert out.getvalue() == log.getvalue() == expected


def test_run_masked_masks_a_child_process_output(tmp_path: Path) -> None:
    import io
    import sys

    from steps.reports.stream import run_masked

    out = io.StringIO()
    script = f"import sys; print('secret {PASSWORD}'); print('err', file=sys.stderr); sys.exit(3)"
    status = run_masked([sys.executable, "-c", script], [PASSWORD], out, tmp_path / "log.txt")
    assert status == 3
    assert out.getvalue() == f"secret {mask(PASSWORD)}\nerr\n"
    assert (tmp_path / "log.txt").read_text() == out.getvalue()


def test_every_pass_masks_a_value_alike() -> None:
    """One masker, one mask: the kit's log, the evidence, a result's message and the reports'
    last pass show the same value the same way."""
    from client_kit._logs import redact
    from steps.http.evidence import mask_url
    from steps.http.layer import HttpLayer

    value = "R3fr3sh-the-same-everywhere-0123"
    layer = HttpLayer(None)
    evidence = mask_url(f"https://svc/cb?refresh_token={value}", layer.redactor)
    message = layer.redactor.scrub(f"AssertionError: got {value}")  # as payload.py masks it
    shown = {
        "log": redact(f"refresh_token={value}"),
        "evidence": evidence,
        "message": message,
        "report": last_pass([value]).redact(f"<td>{value}</td>"),
    }
    for where, text in shown.items():
        assert value not in text and mask(value) in text, where
