"""The example profiles as shipped (steps/profiles/*.example.toml) and what the docs say of
them (docs/checking-a-deployment.md, docs/writing-a-profile.md): filled in with credentials
alone, pointing at sections that exist, asking to register only what the suite uses, listing
exactly the rules their service breaks (with the figures of their runs). The runs that follow
the docs against the stand-ins: test_example_profiles.py."""

from __future__ import annotations

import re

import pytest

from steps.rules.catalogue import load_catalogue
from tests.docs_pages import headings, page
from tests.suite.example_profiles import (
    BROKEN,
    FOREIGN_TRUTH,
    GUIDE,
    MB_EXPECTED,
    ROLES,
    ROOT,
    TRUTH_FILES,
    example,
    example_file,
    filled_in,
)

CATALOGUE = load_catalogue()


def listing_problems(name: str, listed: set[str], broken: dict[str, str]) -> list[str]:
    """An example's known deviations against the rules its service breaks (rule: reason)."""
    problems = [
        f"{example_file(name)} lacks {rule}, which its service breaks ({TRUTH_FILES[name]}: "
        f'{broken[rule]}): add {rule} = "<why>" under [known_deviations]'
        for rule in sorted(set(broken) - listed)
    ]
    problems += [
        f"{example_file(name)} lists {rule}, which its service does not break "
        f"({TRUTH_FILES[name]}): remove it"
        for rule in sorted(listed - set(broken))
    ]
    return problems


def guide_figures(name: str) -> tuple[int, int, int]:
    """The guide's figures of a run that follows it: (expected failures, spec, rfc)."""
    found = re.search(
        rf"the {name}\.org example (?:CONFORMS )?with (\d+) expected failures "
        rf"\((\d+) spec rules, (\d+) rfc",
        " ".join(page(GUIDE).split()),
    )
    assert found, f"docs/{GUIDE} no longer gives the figures of the {name} example's run"
    total, spec, rfc = map(int, found.groups())
    return total, spec, rfc


@pytest.mark.parametrize("name", ["metabrainz", "musicbrainz"])
def test_an_example_is_filled_in_with_credentials_alone(name: str) -> None:
    ready = {
        "base_url": "https://127.0.0.1:1",
        "ca_file": "/ca.pem",
        "password": "pw",
        "email": "a@example.org",
        "clients": {r: {"client_id": r, "client_secret": "s"} for r in ROLES},
    }
    shipped, data = example(name), filled_in(name, ready)
    changed = {
        key for key in data if key not in ("user", "clients") and data.get(key) != shipped.get(key)
    }
    assert changed == {"base_url", "ca_file"}
    assert set(data["clients"]) == set(ROLES)
    assert all(reason for reason in shipped["known_deviations"].values())
    clockless = [
        rule
        for rule, reason in shipped["known_deviations"].items()
        if "--run-slow" in reason and "test clock" not in reason
    ]
    assert not clockless, f"{example_file(name)}: {clockless} say --run-slow, as if no clock"


@pytest.mark.parametrize("name", ["metabrainz", "musicbrainz"])
def test_an_examples_pointer_into_the_docs_names_a_section_they_have(name: str) -> None:
    text = (ROOT / example_file(name)).read_text(encoding="utf-8")
    pointed = re.findall(r'docs/([\w-]+\.md)[^"\n]*"([^"]+)"', text)
    assert pointed, f"{example_file(name)} no longer says where in the docs to read"
    missing = [(where, what) for where, what in pointed if what not in headings(where)]
    assert missing == [], f"{example_file(name)} points at sections the docs do not have"


def guide_registrations(service: str) -> dict[str, list[str]]:
    """The redirect URIs the guide asks to register for each profile role of a service."""
    part = page(GUIDE).split(f"**{service}**", 1)[1].split("\n\n**", 1)[0]
    rows = [line for line in part.splitlines() if line.startswith("| `[clients.")]
    return {
        row.split("`[clients.", 1)[1].split("]", 1)[0]: re.findall(r"`(https?://[^`]+)`", row)
        for row in rows
    }


def test_the_metabrainz_example_asks_to_register_only_uris_the_suite_uses() -> None:
    """The suite exchanges a code issued for the installed application with its first further
    registered URI (TOKEN-REDIRECT-URI-SAME) and uses no other: one more URI for it, none for
    the web applications; the guide's table asks for exactly the example's URIs."""
    clients = example("metabrainz")["clients"]
    more = {role: client.get("more_redirect_uris", []) for role, client in clients.items()}
    assert {role: len(uris) for role, uris in more.items()} == {
        "web": 0,
        "installed": 1,
        "other_web": 0,
    }
    wanted = {role: [client["redirect_uri"], *more[role]] for role, client in clients.items()}
    assert guide_registrations("metabrainz.org") == wanted


def test_the_metabrainz_example_lists_every_rule_the_provider_breaks() -> None:
    shipped = example("metabrainz")
    broken = {r: e["reason"] for r, e in FOREIGN_TRUTH.items() if e["verdict"] in BROKEN}
    problems = listing_problems("metabrainz", set(shipped["known_deviations"]), broken)
    assert not problems, "\n".join(problems)
    spec = len([r for r in broken if CATALOGUE[r].level == "spec"])
    figures = (len(broken), spec, len(broken) - spec)
    assert guide_figures("metabrainz") == figures, (
        f"docs/{GUIDE} gives the metabrainz example's run as {guide_figures('metabrainz')} "
        f"(expected failures, spec, rfc); it is {figures} now: update the figures there"
    )
    assert shipped["scopes"] == {
        name: f"musicbrainz:{name}"
        for name in ("tag", "rating", "collection", "submit_isrc", "submit_barcode")
    }
    assert shipped["capabilities"] == {"test_clock": False, "oob": False, "manual_revocation": True}
    assert shipped["consent"] == {"driver": "metabrainz"}
    assert shipped["clients"]["installed"]["more_redirect_uris"]


def test_the_musicbrainz_example_lists_every_rule_the_server_breaks() -> None:
    shipped = example("musicbrainz")
    broken = {
        rule: entry["reason"]
        for rule, entry in MB_EXPECTED.items()
        if entry["verdict"] in BROKEN or entry.get("with_run_slow") in BROKEN
    }
    problems = listing_problems("musicbrainz", set(shipped["known_deviations"]), broken)
    assert not problems, "\n".join(problems)
    assert {"AUTHZ-APPROVAL-AUTO", "AUTHZ-STATE-ON-ERROR", "DESKTOP-LOOPBACK-PATH"} <= set(broken)
    seen = {r for r, e in MB_EXPECTED.items() if e["verdict"] in BROKEN}
    spec = len([r for r in seen if CATALOGUE[r].level == "spec"])
    figures = (len(seen), spec, len(seen) - spec)
    assert guide_figures("musicbrainz") == figures, (
        f"docs/{GUIDE} gives the musicbrainz example's run as {guide_figures('musicbrainz')} "
        f"(expected failures, spec, rfc); it is {figures} now: update the figures there"
    )
    assert set(shipped["consent"]["form"]["app_names"]) == set(ROLES)


def test_writing_a_profile_registers_the_installed_application_as_musicbrainz_org_allows() -> None:
    """musicbrainz.org's form refuses http://localhost/... for an installed application: the
    docs' own instructions for a profile say to leave its Redirect URL empty there."""
    section = page("writing-a-profile.md").split("\n#", 1)[0]
    registering = " ".join(section.split("The keys,", 1)[0].split())
    assert "with an **empty** Redirect URL" in registering
    assert "an installed one with `http://localhost/callback`" not in registering
