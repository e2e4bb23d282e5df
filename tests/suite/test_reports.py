"""Reports from hand-made results.json data: content, self-containment and the safety net."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

from steps.reports import build_report, finalize_reports, write_reports
from steps.reports.description import EARLIER, FULLER, MIXED, UNDETERMINED, describe
from steps.reports.redact import MASK, harvest_tokens, mask_text, profile_secrets
from steps.verdicts import compute_verdicts

LEAKED_TOKEN = "LeakedAccessTokenValue0123456789abcdef"
LEAKED_CODE = "LeakedAuthorizationCode987654321"
CLIENT_SECRET = "web-client-secret-0123456789"
PASSWORD = "correct horse battery staple"

CATALOGUE = {
    "AUTHZ-STATE-ECHO": {"section": "4.1", "level": "spec", "title": "state is echoed"},
    "TOKEN-CODE-SINGLE-USE": {"section": "4.2", "level": "spec", "title": "A code works once"},
    "TOKEN-PKCE-MISMATCH": {"section": "4.2", "level": "spec", "title": "Wrong verifier fails"},
    "TOKEN-TYPE-MAC-REJECTED": {"section": "4.2", "level": "spec", "title": "mac is refused"},
    "REVOKE-STATUS-200": {"section": "4.4", "level": "spec", "title": "Revoke answers 200"},
    "USERINFO-POST-BODY": {"section": "4.5", "level": "spec", "title": "Token in POST body"},
    "TOKEN-NO-STORE": {"section": "RFC 6749 5.1", "level": "rfc", "title": "no-store"},
    "TOKEN-FORMAT": {"section": "2.3", "level": "info", "title": "Token format"},
}


def exchange(code: str = MASK, token: str = MASK) -> dict[str, Any]:
    return {
        "request": {
            "method": "POST",
            "url": "https://127.0.0.1:8443/oauth2/token",
            "headers": {"Content-Type": "application/x-www-form-urlencoded"},
            "body": f"grant_type=authorization_code&code={code}&client_id=abc",
        },
        "response": {
            "status": 200,
            "headers": {"Cache-Control": "no-store"},
            "body": json.dumps({"access_token": token, "token_type": "Bearer"}),
        },
    }


def scenario(rule: str, outcome: str, evidence: list | None = None, **extra: Any) -> dict:
    return {
        "nodeid": f"steps/test_x.py::test_{rule.lower()}",
        "feature": "features/x.feature",
        "name": f"Scenario for {rule}",
        "rules": [rule],
        "level": CATALOGUE[rule]["level"],
        "outcome": outcome,
        "message": extra.get("message", ""),
        "duration": 0.1,
        "evidence": evidence or [],
    }


def results(description: dict | None = None, leak: bool = False) -> dict[str, Any]:
    evidence = [exchange(LEAKED_CODE, LEAKED_TOKEN)] if leak else [exchange()]
    return {
        "target": "https://127.0.0.1:8443",
        "profile_name": "bundled reference server",
        "started": "2026-11-21T11:00:00+00:00",
        "finished": "2026-11-21T11:01:00+00:00",
        "known_deviations": ["TOKEN-PKCE-MISMATCH"],
        "scenarios": [
            scenario("AUTHZ-STATE-ECHO", "passed", [exchange()]),
            scenario("TOKEN-CODE-SINGLE-USE", "failed", evidence, message="expected 400, got 200"),
            scenario("TOKEN-PKCE-MISMATCH", "failed"),
            scenario("TOKEN-NO-STORE", "failed", message="no Cache-Control"),
            scenario("TOKEN-FORMAT", "passed"),
            scenario("REVOKE-STATUS-200", "skipped"),
        ],
        "observations": {"description": description or {}},
    }


def profile_file(tmp_path: Path) -> Path:
    path = tmp_path / "reports" / "profile.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        'name = "p"\nbase_url = "https://127.0.0.1:8443"\n'
        f'[user]\nusername = "alice"\npassword = "{PASSWORD}"\n'
        f'[clients.web]\nclient_id = "web-id"\nclient_secret = "{CLIENT_SECRET}"\n'
        'redirect_uri = "https://client.example/callback"\n',
        encoding="utf-8",
    )
    return path


def test_verdicts_json_has_one_entry_per_rule(tmp_path: Path) -> None:
    write_reports(tmp_path, results(), CATALOGUE, strict=False)
    doc = json.loads((tmp_path / "verdicts.json").read_text())
    by_id = {r["id"]: r for r in doc["rules"]}
    assert set(by_id) == set(CATALOGUE)
    assert by_id["TOKEN-CODE-SINGLE-USE"]["verdict"] == "fail"
    assert by_id["TOKEN-CODE-SINGLE-USE"]["section"] == "4.2"
    assert by_id["TOKEN-CODE-SINGLE-USE"]["scenarios"][0]["outcome"] == "failed"
    assert by_id["TOKEN-PKCE-MISMATCH"]["verdict"] == "expected failure"
    assert by_id["TOKEN-NO-STORE"]["verdict"] == "warning"
    assert by_id["REVOKE-STATUS-200"]["verdict"] == "skipped"
    assert by_id["USERINFO-POST-BODY"]["verdict"] == "not run"
    assert doc["summary"]["fail"] == 1
    assert doc["summary"]["total"] == len(CATALOGUE)
    assert (doc["target"], doc["profile"]) == ("https://127.0.0.1:8443", "bundled reference server")
    assert (doc["exit_status"], doc["conforms"], doc["failing_rules"]) == (
        1,
        False,
        ["TOKEN-CODE-SINGLE-USE"],
    )


def test_strict_turns_rfc_warnings_into_failures(tmp_path: Path) -> None:
    data = results()
    data["scenarios"] = [s for s in data["scenarios"] if s["rules"] != ["TOKEN-CODE-SINGLE-USE"]]
    assert build_report(data, CATALOGUE, strict=False).exit_status == 0
    report = build_report(data, CATALOGUE, strict=True)
    assert (report.exit_status, report.document["failing_rules"]) == (1, ["TOKEN-NO-STORE"])


def test_terminal_summary_is_by_section_and_plain_without_tty() -> None:
    text = build_report(results(), CATALOGUE).summary(colour=False)
    assert "\x1b[" not in text
    assert re.search(r"^4\.2 Token endpoint: exchange a code  \(.*1 fail", text, re.M)
    assert re.search(r"FAIL\s+TOKEN-CODE-SINGLE-USE", text)
    assert "expected 400, got 200" in text
    assert "USERINFO-POST-BODY" not in text  # rules that did not run are counted, not listed
    assert text.rstrip().endswith("DOES NOT CONFORM (exit 1)")


def test_terminal_summary_uses_colour_when_asked() -> None:
    assert "\x1b[" in build_report(results(), CATALOGUE).summary(colour=True)


def test_html_is_self_contained_and_shows_failure_evidence(tmp_path: Path) -> None:
    write_reports(tmp_path, results(), CATALOGUE)
    page = (tmp_path / "report.html").read_text()
    assert "<script" not in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<style>" in page
    failing = page.split('id="TOKEN-CODE-SINGLE-USE" open>', 1)[1].split("</details>", 1)[0]
    assert "expected 400, got 200" in failing
    assert "POST https://127.0.0.1:8443/oauth2/token" in failing
    assert page.index("4.1 Authorization endpoint") < page.index("4.2 Token endpoint")


def test_description_comes_from_observations() -> None:
    data = results({"pkce": True, "revocation_endpoint": True, "userinfo_post_body": True,
                    "token_type_mac": False})  # fmt: skip
    description = build_report(data, CATALOGUE).document["description"]
    assert description["follows"] == FULLER
    assert {i["source"] for i in description["items"]} == {"observation"}


def test_description_falls_back_to_rule_verdicts() -> None:
    catalogue = {k: v for k, v in CATALOGUE.items()}
    data = {
        "scenarios": [
            {"rules": ["TOKEN-PKCE-MISMATCH"], "outcome": "failed", "name": "a"},
            {"rules": ["TOKEN-TYPE-MAC-REJECTED"], "outcome": "failed", "name": "b"},
            {"rules": ["REVOKE-STATUS-200"], "outcome": "failed", "name": "c"},
            {"rules": ["USERINFO-POST-BODY"], "outcome": "failed", "name": "d"},
        ]
    }
    description = describe(data, compute_verdicts(data, catalogue))
    assert description["follows"] == EARLIER
    items = {i["item"]: i for i in description["items"]}
    assert items["pkce"]["rules"] == [{"id": "TOKEN-PKCE-MISMATCH", "verdict": "fail"}]
    assert items["token_type_mac"]["rules"][0]["id"] == "TOKEN-TYPE-MAC-REJECTED"
    assert items["userinfo_post_body"]["source"] == "rule verdicts"


@pytest.mark.parametrize(
    ("observed", "follows"),
    [
        ({"pkce": True, "token_type_mac": True}, MIXED),
        ({"pkce": False, "revocation_endpoint": False}, EARLIER),
        ({"pkce": {"value": True, "evidence": "verifier mismatch -> invalid_grant"}}, FULLER),
    ],
)
def test_description_overall(observed: dict, follows: str) -> None:
    data = {"scenarios": [], "observations": {"description": observed}}
    assert describe(data, [])["follows"] == follows


def test_description_undetermined_when_nothing_ran() -> None:
    assert describe({"scenarios": []}, compute_verdicts({}, CATALOGUE))["follows"] == UNDETERMINED


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
    assert secret not in mask_text(text, [])


@pytest.mark.parametrize(
    "text",
    [
        'WWW-Authenticate: Bearer realm="musicbrainz", error="invalid_token"',
        "A Bearer token sent over plain HTTP is ignored",
        '{"token_type": "Bearer", "expires_in": 3600}',
        "code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "https://client.example/callback?code=abcd%E2%80%A6%2832%29&state=x",
        '{"access_token": "abcd…(32)", "refresh_token": "wxyz\\u2026(32)"}',
    ],
)
def test_harmless_text_is_left_alone(text: str) -> None:
    assert mask_text(text, []) == text


def test_secrets_are_collected_from_profile_and_evidence() -> None:
    profile = {
        "user": {"password": PASSWORD},
        "clients": {"web": {"client_id": "web-id", "client_secret": CLIENT_SECRET}},
    }
    assert {PASSWORD, CLIENT_SECRET} <= profile_secrets(profile)
    assert {LEAKED_TOKEN, LEAKED_CODE} <= harvest_tokens(results(leak=True))
    assert harvest_tokens(results(leak=False)) == set()


def test_every_description_item_has_rules_in_the_real_catalogue() -> None:
    from steps.catalogue import load_catalogue
    from steps.reports.description import ITEMS, related_rules

    verdicts = compute_verdicts({}, load_catalogue())
    for item in ITEMS:
        primary = [r for r in related_rules(item, verdicts) if re.search(item.primary, r.id)]
        assert primary, f"no deciding rule for {item.key} in features/rules.toml"


def test_an_ignored_verifier_means_pkce_is_absent_even_if_the_flow_works() -> None:
    from steps.catalogue import load_catalogue

    data = {
        "scenarios": [
            {"rules": ["PKCE-S256", "VERSION-PKCE"], "outcome": "passed", "name": "a"},
            {"rules": ["PKCE-VERIFIER-MISMATCH"], "outcome": "failed", "name": "b"},
            {"rules": ["VERSION-REVOCATION"], "outcome": "passed", "name": "c"},
        ]
    }
    description = describe(data, compute_verdicts(data, load_catalogue()))
    items = {i["item"]: i["follows"] for i in description["items"]}
    assert items == {
        "pkce": EARLIER,
        "token_type_mac": UNDETERMINED,
        "revocation_endpoint": FULLER,
        "userinfo_post_body": UNDETERMINED,
    }
    assert description["follows"] == MIXED


def test_the_example_musicbrainz_profile_loads_and_names_real_rules() -> None:
    from steps.catalogue import load_catalogue
    from steps.profile import load_profile

    path = Path(__file__).parents[2] / "steps" / "profiles" / "musicbrainz.example.toml"
    profile = load_profile(path)
    assert profile.base_url == "https://musicbrainz.org"
    assert set(profile.clients) == {"web", "installed", "other_web"}
    assert set(profile.known_deviations) <= set(load_catalogue())
    assert profile.capabilities.test_clock is None


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
    assert out.getvalue() == log.getvalue() == "E   Client(client_secret='***')\n..."


def test_run_masked_masks_a_child_process_output(tmp_path: Path) -> None:
    import io
    import sys

    from steps.reports.stream import run_masked

    out = io.StringIO()
    script = f"import sys; print('secret {PASSWORD}'); print('err', file=sys.stderr); sys.exit(3)"
    status = run_masked([sys.executable, "-c", script], [PASSWORD], out, tmp_path / "log.txt")
    assert status == 3
    assert out.getvalue() == "secret ***\nerr\n"
    assert (tmp_path / "log.txt").read_text() == out.getvalue()


def test_observations_reach_verdicts_json_and_the_page(tmp_path: Path) -> None:
    data = results({"pkce": True})
    data["observations"] |= {"token_type": "bearer", "access_token_length": 32}
    write_reports(tmp_path, data, CATALOGUE)
    doc = json.loads((tmp_path / "verdicts.json").read_text())
    assert doc["observations"] == {"token_type": "bearer", "access_token_length": 32}
    page = (tmp_path / "report.html").read_text()
    assert "<h2>Observations</h2>" in page
    assert "<td>access_token_length</td><td><code>32</code>" in page
