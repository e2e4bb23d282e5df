"""A pytest plugin for one test: the first Then step of a scenario fails with a message that
quotes a live access token (as TOKEN-CODE-REPLAY-REVOKES once did), and writes the token to
the file named by MB_OAUTH_LEAK_FILE so the test can look for it in every report file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from steps.http.layer import HttpLayer


def live_token(http: HttpLayer) -> str | None:
    """The access token of the scenario's last token response (unmasked, as it arrived)."""
    for exchange in reversed(http.exchanges):
        try:
            body = json.loads(exchange.response_body)
        except ValueError:
            continue
        if isinstance(body, dict) and isinstance(body.get("access_token"), str):
            return body["access_token"]
    return None


def pytest_bdd_before_step_call(request: pytest.FixtureRequest, step: Any, **_: Any) -> None:
    """Fail the first Then step that follows a token response, quoting the live token."""
    token = live_token(request.getfixturevalue("http")) if step.type == "then" else None
    if token is None:
        return
    Path(os.environ["MB_OAUTH_LEAK_FILE"]).write_text(token, encoding="utf-8")
    raise AssertionError(f"the access token {token} still works after its code was replayed")
