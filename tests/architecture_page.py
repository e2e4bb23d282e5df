"""The tables of docs/architecture.md, read for the tests that hold the code to them.

The page is the one place the project's structure is written down: the packages and what
they may import, the server's layers, the suite's rooms, the kit's public and internal
modules, and what outlives a request. A test reads a table by the heading above it, so the
page and the check cannot drift apart: edit the table and the test follows it.
"""

from __future__ import annotations

from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


def table(heading: str, page: Path = PAGE) -> list[dict[str, str]]:
    """The rows of the first table under `heading` (its text after the #'s), keyed by column.

    Cells lose their surrounding spaces and their backticks; an empty cell or "-" reads as "".
    """
    lines = page.read_text().splitlines()
    start = _heading_line(lines, heading, page)
    rows = _table_lines(lines[start + 1 :])
    if len(rows) < 2:
        raise LookupError(f"{page.name}: no table under '{heading}'")
    header = _cells(rows[0])
    return [dict(zip(header, _cells(row), strict=True)) for row in rows[2:]]


def words(cell: str) -> tuple[str, ...]:
    """A cell that lists names ("a, b c"): the names, in order."""
    return tuple(cell.replace(",", " ").split())


def _heading_line(lines: list[str], heading: str, page: Path) -> int:
    for number, line in enumerate(lines):
        if line.startswith("#") and line.lstrip("#").strip() == heading:
            return number
    raise LookupError(f"{page.name}: no heading '{heading}'")


def _table_lines(lines: list[str]) -> list[str]:
    """The table's lines: from the first line that starts with "|" to the next that does not."""
    found: list[str] = []
    for line in lines:
        if line.startswith("|"):
            found.append(line)
        elif found or line.startswith("#"):
            break
    return found


def _cells(line: str) -> list[str]:
    cells = [cell.replace("`", "").strip() for cell in line.strip().strip("|").split("|")]
    return ["" if cell == "-" else cell for cell in cells]
