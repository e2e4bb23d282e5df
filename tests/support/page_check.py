"""Look at a page as a person would: a screenshot at a desktop and at a phone width, and
axe-core's findings at each width (a layout can break at one width only), plus the one check
axe leaves out that a phone shows at once: a page wider than the screen.

Screenshots and every finding (all impacts) are kept as artefacts of the test run, by default
in ``reports/pages/`` (``MB_OAUTH_ARTEFACTS`` moves the parent folder); the test asserts on
the serious and critical ones.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tests.support import axe

if TYPE_CHECKING:
    from playwright.sync_api import Page

REPOSITORY = Path(__file__).resolve().parents[2]
# Name, width, height in CSS pixels: a laptop and a small phone (iPhone 12-15 sized).
WIDTHS = (("desktop", 1280, 800), ("phone", 390, 844))


def artefacts_dir() -> Path:
    """Where the run's page artefacts go: $MB_OAUTH_ARTEFACTS/pages or reports/pages."""
    parent = os.environ.get("MB_OAUTH_ARTEFACTS") or str(REPOSITORY / "reports")
    return Path(parent) / "pages"


def _reflow(page: Page, width: int) -> list[axe.Finding]:
    """WCAG 1.4.10 (reflow), which axe does not check: nothing may make the page scroll
    sideways at a phone's width (a person would have to pan to read each line)."""
    wider = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    if wider[0] <= wider[1]:
        return []
    help_text = f"Content is {wider[0]} px wide in a {wider[1]} px window: it scrolls sideways"
    return [axe.Finding("reflow", "serious", help_text, f"html at {width} px", "")]


@dataclass
class Visit:
    """What one page looked like: its screenshots and findings."""

    name: str
    url: str
    screenshots: list[str] = field(default_factory=list)
    findings: list[axe.Finding] = field(default_factory=list)


class PageCheck:
    """Screenshots and accessibility findings of the pages a tour visits, in order."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.visits: list[Visit] = []
        out_dir.mkdir(parents=True, exist_ok=True)
        for stale in [*out_dir.glob("*.png"), out_dir / "axe.json"]:
            stale.unlink(missing_ok=True)

    def look(self, page: Page, name: str) -> Visit:
        """Screenshot and check the page now shown, at each width; the page ends at the
        desktop width, as it began."""
        visit = Visit(name, page.url)
        stem = f"{len(self.visits) + 1:02d}-{re.sub(r'[^a-z0-9]+', '-', name.lower())}"
        for label, width, height in WIDTHS:
            page.set_viewport_size({"width": width, "height": height})
            shot = self.out_dir / f"{stem}-{label}.png"
            page.screenshot(path=str(shot), full_page=True)
            visit.screenshots.append(shot.name)
            for finding in [*axe.check(page), *_reflow(page, width)]:
                if finding not in visit.findings:
                    visit.findings.append(finding)
        page.set_viewport_size({"width": WIDTHS[0][1], "height": WIDTHS[0][2]})
        self.visits.append(visit)
        self.write()
        return visit

    def blocking(self) -> list[str]:
        """Every serious or critical finding, named by its page, for the assertion message."""
        return [
            f"{visit.name} <{visit.url}>: {finding}"
            for visit in self.visits
            for finding in axe.blocking(visit.findings)
        ]

    def write(self) -> None:
        """axe.json: the axe-core version and each page's screenshots and findings."""
        record = {
            "axe_core": axe.version(),
            "widths": {label: [w, h] for label, w, h in WIDTHS},
            "pages": [asdict(visit) for visit in self.visits],
        }
        (self.out_dir / "axe.json").write_text(json.dumps(record, indent=1) + "\n")
