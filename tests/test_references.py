"""No dangling references: every repository path the README, the pages of docs/ and the shipped
profiles cite exists, and none of them sends the reader to a file outside the repository (such
as the project's private `reference/` notes)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOP = ("steps", "tests", "docs", "features", "tools", "reference_server", "client_kit", "examples")
CITED = re.compile(r"(?<![\w./-])((?:" + "|".join(TOP) + r")/[\w./-]*\w)")
OUTSIDE = re.compile(r"(?<![\w/])reference/[\w-]+\.md|/work/shared")
DOCUMENTS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "steps" / "profiles").glob("*.toml")),
]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_path_a_document_cites_exists(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    cited = sorted(set(CITED.findall(text)))
    assert cited or document.suffix == ".toml"
    assert [path for path in cited if not (ROOT / path).exists()] == []
    assert OUTSIDE.findall(text) == []


TRACKER_ISSUE = re.compile(r"\b[Ii]ssues? #?\d+")
#: The performance journal dates its rounds by the issue that asked for them.
JOURNAL = ROOT / "tools" / "PERFORMANCE.md"


def test_no_file_cites_an_issue_of_a_tracker_the_repository_does_not_carry() -> None:
    folders = ("reference_server", "client_kit", "steps", "tests", "tools", "features", "docs")
    files = [ROOT / "README.md"] + [
        path
        for folder in folders
        for path in sorted((ROOT / folder).rglob("*"))
        if path.is_file()
        and path.suffix in {".py", ".pyi", ".md", ".toml", ".feature", ""}
        and "__pycache__" not in path.parts
        and path != JOURNAL
    ]
    cited = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in files
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if TRACKER_ISSUE.search(line)
    ]
    assert cited == [], "say what the issue said instead of its number: " + ", ".join(cited)
