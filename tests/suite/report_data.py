"""Hand-made results.json data for the report tests: a small catalogue, scenarios with
evidence (masked, or leaking on purpose) and a profile with secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from client_kit.redaction import MASK

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


def scenario(
    rule: str, outcome: str, evidence: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
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


def results(description: dict[str, Any] | None = None, leak: bool = False) -> dict[str, Any]:
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
