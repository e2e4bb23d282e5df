"""Which of the two descriptions of spec section 9 a deployment follows, with the evidence.

Section 9 of the spec lists four items on which a "fuller" and an "earlier" description of
the token endpoints differ. The plugin records what it saw in results.json
(observations.description); where it did not, the verdicts of the rules about each item
decide. Rule ids are matched by pattern, not spelled out, so a renamed rule still counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from steps.reports.verdicts import (
    EXPECTED_FAILURE,
    FAIL,
    NOT_RUN,
    PASS,
    UNEXPECTED_PASS,
    WARNING,
    RuleVerdict,
)
from steps.rules.ids import RULE

FULLER = "fuller"
EARLIER = "earlier"
MIXED = "mixed"
UNDETERMINED = "undetermined"


@dataclass(frozen=True)
class Item:
    """One row of the section 9 table and how to recognise its rules."""

    key: str
    label: str
    fuller_value: bool  # the observation value that matches the fuller description
    fuller_text: str
    earlier_text: str
    id_pattern: str  # regex on the rule id
    title_pattern: str = ""  # optional regex on the rule title, either may match
    primary: str = ""  # regex on the id of the rule that decides the item when it ran


ITEMS = (
    Item(
        "pkce",
        "PKCE parameters",
        True,
        "supported (a disagreeing code_verifier is rejected)",
        "absent (code_challenge / code_verifier are ignored)",
        r"PKCE",
        r"\bPKCE\b|code_verifier|code_challenge",
        rf"^({RULE.VERSION_PKCE}|{RULE.PKCE_VERIFIER_MISMATCH})$",
    ),
    Item(
        "token_type_mac",
        "token_type on the token endpoint",
        False,
        "only bearer allowed (mac refused)",
        "mac accepted",
        r"\bMAC\b|TOKEN-TYPE-(PARAM|BEARER-ONLY|ONLY|REQUEST)",
        r"(?i)\bmac\b",
        r"^VERSION-.*(MAC|TOKEN-TYPE)",
    ),
    Item(
        "revocation_endpoint",
        "revocation endpoint",
        True,
        "present",
        "absent",
        r"^REVOKE|REVOCATION",
        "",
        r"^VERSION-REVOC",
    ),
    Item(
        "userinfo_post_body",
        "token in the POST body of user information",
        True,
        "supported",
        "absent",
        r"USERINFO.*(POST|BODY|FORM)",
        r"(POST|form).*(body|field)",
        r"^VERSION-USERINFO",
    ),
)

_GOOD = {PASS, UNEXPECTED_PASS}
_BAD = {FAIL, WARNING, EXPECTED_FAILURE}


def related_rules(item: Item, verdicts: Iterable[RuleVerdict]) -> list[RuleVerdict]:
    """The spec/rfc rules that concern an item (matched on id, or on title when given)."""
    found = []
    for verdict in verdicts:
        if verdict.level == "info":
            continue
        by_id = re.search(item.id_pattern, verdict.id, re.IGNORECASE)
        by_title = item.title_pattern and re.search(item.title_pattern, verdict.title)
        if by_id or by_title:
            found.append(verdict)
    return found


def from_verdicts(item: Item, rules: list[RuleVerdict]) -> bool | None:
    """True/False = behaves as the fuller/earlier description; None = nothing decisive ran.

    The deciding rules (item.primary) settle it when they ran: one failure means the item
    is missing or ignored, except for the revocation endpoint, whose presence any passing
    rule proves. Otherwise all related rules vote, and a split vote decides nothing.
    """
    primary = [r for r in rules if item.primary and re.search(item.primary, r.id)]
    decisive = [r for r in primary if r.verdict in _GOOD | _BAD]
    good = any(r.verdict in _GOOD for r in decisive or rules)
    bad = any(r.verdict in _BAD for r in decisive or rules)
    if item.key == "revocation_endpoint" and good:
        return True
    if decisive and bad:
        return False
    if good != bad:
        return good
    return None


def _observation(observed: Any) -> tuple[bool | None, str]:
    """An observation is true/false/null, or a dict with a value and evidence text."""
    if isinstance(observed, Mapping):
        value = observed.get("value", observed.get("supported"))
        return (value if isinstance(value, bool) else None), str(observed.get("evidence") or "")
    return (observed if isinstance(observed, bool) else None), ""


def describe_item(
    item: Item, observations: Mapping[str, Any], verdicts: list[RuleVerdict]
) -> dict[str, Any]:
    """One item: which description it matches, from what, and the rules behind it."""
    rules = [r for r in related_rules(item, verdicts) if r.verdict != NOT_RUN]
    value, evidence = _observation(observations.get(item.key))
    if value is not None:
        follows, source = (FULLER if value == item.fuller_value else EARLIER), "observation"
    else:
        fuller = from_verdicts(item, rules)
        follows = UNDETERMINED if fuller is None else (FULLER if fuller else EARLIER)
        source = "none" if fuller is None else "rule verdicts"
    text = {FULLER: item.fuller_text, EARLIER: item.earlier_text}.get(follows, "not determined")
    return {
        "item": item.key,
        "label": item.label,
        "follows": follows,
        "behaviour": text,
        "source": source,
        "evidence": evidence,
        "rules": [{"id": r.id, "verdict": r.verdict} for r in rules],
    }


def overall(items: list[dict[str, Any]]) -> str:
    """fuller / earlier when every determined item agrees, mixed when they disagree."""
    seen = {i["follows"] for i in items} - {UNDETERMINED}
    if not seen:
        return UNDETERMINED
    return seen.pop() if len(seen) == 1 else MIXED


def describe(results: Mapping[str, Any], verdicts: list[RuleVerdict]) -> dict[str, Any]:
    """The description block of verdicts.json and of the other reports."""
    observations = (results.get("observations") or {}).get("description") or {}
    items = [describe_item(item, observations, verdicts) for item in ITEMS]
    return {"follows": overall(items), "items": items}


def headline(description: Mapping[str, Any]) -> str:
    """One line for the terminal and the HTML page."""
    follows = description.get("follows", UNDETERMINED)
    names = {
        FULLER: "the fuller description (the one to follow)",
        EARLIER: "the earlier description",
        MIXED: "neither description consistently (mixed)",
        UNDETERMINED: "undetermined (the relevant rules did not run)",
    }
    return f"Spec section 9: the deployment follows {names.get(follows, follows)}"
