"""How the bench report writes a figure (n/a, yes/no, digits)."""

from __future__ import annotations


def fmt(value, digits: int = 2, suffix: str = "") -> str:
    """A figure as the report writes it: n/a when not measured, fixed digits otherwise."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value}{suffix}"
    return f"{value:.{digits}f}{suffix}"
