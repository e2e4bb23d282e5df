"""The documentation as the tests read it: the README (the site's home page) and the pages of
docs/ (mkdocs.yml), each by its file name, and a page's section by its heading."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def page(name: str) -> str:
    """A page's Markdown: `README.md`, or a file of docs/ such as `client-kit.md`."""
    path = ROOT / name if name == "README.md" else DOCS / name
    return path.read_text(encoding="utf-8")


def section(name: str, heading: str) -> str:
    """The text under `heading` (its words, without the #s) down to the next heading of its
    level or above; AssertionError naming the page when the heading is gone."""
    level, body, found = 0, [], False
    fenced = False
    for line in page(name).splitlines():
        if line.startswith("```"):
            fenced = not fenced
        hashes = len(line) - len(line.lstrip("#")) if line.startswith("#") and not fenced else 0
        if found and hashes and hashes <= level:
            break
        if found:
            body.append(line)
        elif hashes and line[hashes:].strip() == heading:
            level, found = hashes, True
    assert found, f"docs/{name} has no heading {heading!r}"
    return "\n".join(body)


def headings(name: str) -> set[str]:
    """The words of every heading of a page, code blocks left out."""
    found, fenced = set(), False
    for line in page(name).splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif line.startswith("#") and not fenced:
            found.add(line.lstrip("#").strip())
    return found
