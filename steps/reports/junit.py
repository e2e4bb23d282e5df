"""pytest's own reports (junit.xml, cucumber.json) told which scenarios could not be checked.

The plugin turns such a scenario into a skip whose message starts "could not be checked", so
JUnit readers never count it as a failure; here the JUnit element gets a type of its own and
the cucumber step that stopped it gets the message (pytest-bdd writes skips without one).
"""

from __future__ import annotations

import contextlib
import json
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from steps.outcomes import UNCHECKED_OUTCOME
from steps.reports.verdicts import UNCHECKED

JUNIT = "junit.xml"
CUCUMBER = "cucumber.json"
#: JUnit `type` of a scenario that could not be checked (beside pytest's "pytest.skip").
JUNIT_TYPE = "could-not-be-checked"


def unchecked_messages(results: Mapping[str, Any]) -> dict[str, str]:
    """Test function name -> message, for the scenarios that could not be checked."""
    found = {}
    for scenario in results.get("scenarios") or ():
        if scenario.get("outcome") == UNCHECKED_OUTCOME:
            name = str(scenario.get("nodeid", "")).rsplit("::", 1)[-1]
            found[name] = str(scenario.get("message") or UNCHECKED)
    return found


def annotate_junit(path: Path, messages: Mapping[str, str]) -> bool:
    """Give the <skipped> element of each unchecked test case the type 'could-not-be-checked'."""
    if not messages or not path.exists():
        return False
    tree = ET.parse(path)
    changed = False
    for case in tree.iter("testcase"):
        skipped = case.find("skipped")
        if skipped is not None and case.get("name") in messages:
            skipped.set("type", JUNIT_TYPE)
            skipped.set("message", messages[case.get("name", "")])
            changed = True
    if changed:
        tree.write(path, encoding="utf-8", xml_declaration=True)
    return changed


def annotate_cucumber(path: Path, messages: Mapping[str, str]) -> bool:
    """Put the message on the first skipped step of each unchecked scenario."""
    if not messages or not path.exists():
        return False
    features = json.loads(path.read_text(encoding="utf-8"))
    changed = False
    for feature in features:
        for element in feature.get("elements", ()):
            message = messages.get(element.get("id", ""))
            step = next(
                (s for s in element.get("steps", ()) if s["result"]["status"] == "skipped"), None
            )
            if message and step is not None:
                step["result"]["error_message"] = message
                changed = True
    if changed:
        path.write_text(json.dumps(features, indent=2, ensure_ascii=False), encoding="utf-8")
    return changed


def annotate_pytest_reports(report_dir: Path, results: Mapping[str, Any]) -> None:
    """Both files, leaving a file alone when it cannot be read."""
    messages = unchecked_messages(results)
    with contextlib.suppress(OSError, ValueError, ET.ParseError):
        annotate_junit(report_dir / JUNIT, messages)
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        annotate_cucumber(report_dir / CUCUMBER, messages)
