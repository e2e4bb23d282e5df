"""Reports from hand-made results.json data: content, descriptions and self-containment.
The safety net that masks secrets: test_report_safety_net.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from steps.http.html import soup
from steps.reports import build_report, write_reports
from steps.reports.description import EARLIER, FULLER, MIXED, UNDETERMINED, describe
from steps.reports.verdicts import compute_verdicts
from tests.suite.report_data import (
    CATALOGUE,
    results,
    scenario,
)


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
    addresses = [str(node.get(a)) for a in ("src", "href") for node in soup(page).select(f"[{a}]")]
    assert not [a for a in addresses if a.strip().startswith(("http:", "https:", "//"))]
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


def test_every_description_item_has_rules_in_the_real_catalogue() -> None:
    from steps.reports.description import ITEMS, related_rules
    from steps.rules.catalogue import load_catalogue

    verdicts = compute_verdicts({}, load_catalogue())
    for item in ITEMS:
        primary = [r for r in related_rules(item, verdicts) if re.search(item.primary, r.id)]
        assert primary, f"no deciding rule for {item.key} in features/rules.toml"


def test_an_ignored_verifier_means_pkce_is_absent_even_if_the_flow_works() -> None:
    from steps.rules.catalogue import load_catalogue

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
    from steps.profiles.profile import load_profile
    from steps.rules.catalogue import load_catalogue

    path = Path(__file__).parents[2] / "steps" / "profiles" / "musicbrainz.example.toml"
    profile = load_profile(path)
    assert profile.base_url == "https://musicbrainz.org"
    assert set(profile.clients) == {"web", "installed", "other_web"}
    assert set(profile.known_deviations) <= set(load_catalogue())
    assert profile.capabilities.test_clock is None


def test_observations_reach_verdicts_json_and_the_page(tmp_path: Path) -> None:
    data = results({"pkce": True})
    data["observations"] |= {"token_type": "bearer", "access_token_length": 32}
    write_reports(tmp_path, data, CATALOGUE)
    doc = json.loads((tmp_path / "verdicts.json").read_text())
    assert doc["observations"] == {"token_type": "bearer", "access_token_length": 32}
    page = (tmp_path / "report.html").read_text()
    assert "<h2>Observations</h2>" in page
    assert "<td>access_token_length</td><td><code>32</code>" in page


def _without_failures() -> dict:
    """The hand-made results without their failures: every spec rule that ran passes."""
    data = results()
    data["scenarios"] = [s for s in data["scenarios"] if s["outcome"] != "failed"]
    return data


def test_a_selection_that_leaves_out_spec_rules_never_says_conforms() -> None:
    """A --rule selection passes what it checked, and says only that: USERINFO-POST-BODY,
    TOKEN-CODE-SINGLE-USE and the others were not run, so nothing is known of them."""
    report = build_report(_without_failures(), CATALOGUE)
    doc = report.document
    assert report.exit_status == 0 and doc["conforms"] is False
    assert doc["conclusion"] == "NO FAILURE IN THE SELECTION (not a verdict on the deployment)"
    assert doc["rules_checked"] == {"checked": 2, "of": len(CATALOGUE), "selection": True}
    last = report.summary().rstrip().splitlines()[-1]
    assert last == (
        f"Rules: 1 pass, 1 observed, 1 skipped. Only 2 of the {len(CATALOGUE)} rules were "
        "checked. NO FAILURE IN THE SELECTION (not a verdict on the deployment) (exit 0)"
    )
    assert "CONFORMS" not in last


def test_a_run_of_every_spec_rule_conforms_and_says_what_it_left_out() -> None:
    """--level spec checks every rule that decides conformance: CONFORMS, with the count of
    rules checked; with --strict the rfc rules decide too, and then it is a selection."""
    data = _without_failures()
    spec = [rule for rule, entry in CATALOGUE.items() if entry["level"] == "spec"]
    data["scenarios"] = [scenario(rule, "passed") for rule in spec]
    report = build_report(data, CATALOGUE)
    assert report.document["conclusion"] == "CONFORMS" and report.document["conforms"]
    assert f"Only {len(spec)} of the {len(CATALOGUE)} rules" in report.summary()
    assert build_report(data, CATALOGUE, strict=True).document["conforms"] is False
