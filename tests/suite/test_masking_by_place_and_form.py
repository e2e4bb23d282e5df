"""Secrets a report must not hold, whatever the deployment does with them: the secrets a page
shows of applications the suite never heard of (masked by their place on the page), and the
suite's own secrets echoed back percent-encoded, JSON-escaped or base64-encoded at any of the
three alignments (steps/http/html.py `secret_places`, steps/safety/secret_forms.py)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from urllib.parse import quote, quote_plus, urlencode

import pytest

from steps.http.evidence import Exchange
from steps.http.layer import HttpLayer
from steps.reports import finalize_reports, write_reports
from tests.suite.mb_pages import applications_body, page
from tests.suite.musicbrainz.account import registered_table
from tests.suite.report_data import CATALOGUE, CLIENT_SECRET, PASSWORD, profile_file, results

#: Secrets of three applications of the account the profile does not name.
OTHERS = ("Qx9vT2mL8sKd0pRw3eYb", "mX7-uN4_bV1cZ8aQ2wEr", "h5Jk9Lp0Oi8Uy7Tr6EwQ")
#: A secret with the characters every encoding changes.
AWKWARD = "s3cr/t+Val=ue~x&y%z\u00e9"


def revealed(text: str, secret: str) -> bool:
    """Whether `text` gives `secret` away: as it is, percent-encoded (either case of hex), or
    (so, or form-encoded) inside any base64 or base64url run, decoded at every starting
    point."""
    percent = quote(secret, safe="")
    if secret in text or percent in text or percent.lower() in text.lower():
        return True
    if json.dumps(secret)[1:-1].replace("/", "\\/") in text:
        return True
    wanted = [form.encode() for form in (secret, percent, quote_plus(secret))]
    for run in re.findall(r"[A-Za-z0-9+/_-]{8,}", text):
        for start in range(4):
            chunk = run[start:]
            chunk = chunk[: len(chunk) - len(chunk) % 4]
            for decode in (base64.b64decode, base64.urlsafe_b64decode):
                try:
                    decoded = decode(chunk)
                except ValueError:
                    continue
                if any(form in decoded for form in wanted):
                    return True
    return False


def applications_page() -> str:
    """The user's applications page of musicbrainz-server: every registered application with
    its Client Secret (one of them the profile's, the others unknown to the suite)."""
    registered = [("Suite web app", "Web application", "cid-web", CLIENT_SECRET)]
    registered += [
        (f"Other {i}", "Installed application", f"cid-{i}", secret)
        for i, secret in enumerate(OTHERS)
    ]
    body = applications_body([("Suite web app", 11, 1)]) + registered_table(registered)
    return bytes(page("Applications", body).body).decode()


def exchange_with(body: str, content_type: str, request_body: str = "") -> Exchange:
    return Exchange(
        method="POST",
        url="https://mb.example/oauth2/token",
        request_headers=[("content-type", "application/x-www-form-urlencoded")],
        request_body=request_body,
        status=400,
        response_headers=[("content-type", content_type)],
        response_body=body,
    )


def evidence_text(exchange: Exchange) -> str:
    layer = HttpLayer(None)
    layer.redactor.learn(CLIENT_SECRET, PASSWORD, AWKWARD)
    layer.record(exchange)
    return json.dumps(layer.evidence(), ensure_ascii=False)


def test_the_applications_page_loses_every_secret_it_lists() -> None:
    shown = evidence_text(exchange_with(applications_page(), "text/html; charset=utf-8"))
    for secret in (*OTHERS, CLIENT_SECRET):
        assert not revealed(shown, secret), secret
    assert "cid-1" in shown and "Other 2" in shown  # the rest of the page stays readable


@pytest.mark.parametrize(
    "place",
    [
        "<dl><dt>Client secret</dt><dd>{}</dd></dl>",
        "<table><tr><th>Client Secret</th><td>{}</td></tr></table>",
        '<label for="s">Secret</label><input id="s" value="{}">',
        '<input name="oauth_secret" value="{}">',
        "<p>Your client secret: {}</p>",
        '<script type="application/json">{{"apps": [{{"clientSecret": "{}"}}]}}</script>',
    ],
)
def test_a_secret_is_masked_by_its_place_on_a_page(place: str) -> None:
    shown = evidence_text(
        exchange_with(f"<html><body>{place.format(OTHERS[0])}</body></html>", "text/html")
    )
    assert not revealed(shown, OTHERS[0])


def test_a_json_member_naming_a_secret_is_masked() -> None:
    body = json.dumps({"application": {"oauth_secret": OTHERS[1], "name": "x"}})
    assert not revealed(evidence_text(exchange_with(body, "application/json")), OTHERS[1])


@pytest.mark.parametrize("secret", [CLIENT_SECRET, PASSWORD, AWKWARD])
@pytest.mark.parametrize("shift", [0, 1, 2])
def test_an_echo_in_base64_at_any_alignment_is_masked(secret: str, shift: int) -> None:
    """A deployment that echoes the request base64-encoded, after 0, 1 or 2 bytes of its own."""
    request = urlencode({"client_id": "web", "client_secret": secret, "grant_type": "x"})
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        echoed = encode(b"~" * shift + request.encode()).decode()
        body = json.dumps({"error": "invalid_request", "error_description": echoed})
        assert not revealed(evidence_text(exchange_with(body, "application/json", request)), secret)


@pytest.mark.parametrize("secret", [CLIENT_SECRET, AWKWARD])
def test_percent_and_json_echoes_are_masked(secret: str) -> None:
    percent = quote(secret, safe="")
    echoes = [
        re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), percent),
        quote(percent, safe=""),
        json.dumps(secret)[1:-1].replace("/", "\\/"),
        json.dumps(secret, ensure_ascii=True)[1:-1],
    ]
    for echo in echoes:
        shown = evidence_text(exchange_with(f"echo: {echo}", "text/plain"))
        assert echo not in shown and not revealed(shown, secret), echo


def test_the_reports_last_pass_masks_base64_echoes_of_the_profiles_secrets(
    tmp_path: Path,
) -> None:
    profile = profile_file(tmp_path)
    reports = profile.parent
    leaked = results(leak=False)
    for shift in range(3):
        blob = base64.b64encode(b"#" * shift + f"client_secret={CLIENT_SECRET}".encode()).decode()
        leaked["scenarios"][0]["message"] += f" echo {blob}"
    (reports / "results.json").write_text(json.dumps(leaked))
    write_reports(reports, leaked, CATALOGUE)
    finalize_reports(reports, profile)
    for name in ("results.json", "report.html", "verdicts.json", "summary.txt"):
        assert not revealed((reports / name).read_text(), CLIENT_SECRET), name
