"""What a keyboard, a phone and a reader of small print meet on the pages,
measured in the system Chromium: the skip link and the tab stops before "Allow access", the
size of button text, where URLs and client ids break on a phone. The screenshots of every page
are taken by test_pages_in_browser.py.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, cast
from urllib.parse import urlencode

import pytest

from tests.support.world import App, World

from .browsing import browser, log_in, page
from .flows import authorize_params

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

__all__ = ["browser", "page"]  # fixtures, used by name

LONG_REDIRECT = "https://tagger-with-a-long-name.client.example/oauth2/callback/after/login"


@pytest.fixture
def consent_page(world: World, page: Page) -> Page:
    """The consent page of an application sending a long redirect URI, logged in."""
    made = world.server.add_app(
        world.username, f"Long {secrets.token_hex(3)}", "confidential", LONG_REDIRECT
    )
    app = App(made["client_id"], made["client_secret"], LONG_REDIRECT, "confidential")
    params = authorize_params(app, approval_prompt="force")
    page.goto(world.server.base_url + "/oauth2/authorize?" + urlencode(params))
    log_in(page, world.username, world.password)
    page.wait_for_selector("#consent-form")
    return page


def _focused(page: Page) -> str:
    return cast(str, page.evaluate("document.activeElement.textContent.trim()"))


def test_the_skip_link_leads_a_keyboard_to_allow_access(consent_page: Page) -> None:
    page = consent_page
    page.keyboard.press("Tab")
    assert _focused(page) == "Skip to main content"
    shown = page.locator(".skip-link").bounding_box()
    assert shown is not None and shown["y"] >= 0  # visible once it has the focus
    page.keyboard.press("Enter")
    stops = ["Skip to main content"]
    while _focused(page) != "Allow access" and len(stops) < 20:
        page.keyboard.press("Tab")
        stops.append(_focused(page))
    assert stops[-1] == "Allow access" and len(stops) - 1 <= 2, stops


def test_buttons_are_not_smaller_than_body_text(consent_page: Page) -> None:
    page = consent_page
    sizes = page.evaluate(
        """[getComputedStyle(document.body).fontSize,
            ...[...document.querySelectorAll('button, summary, input, select')]
               .map(b => getComputedStyle(b).fontSize)]"""
    )
    body, *controls = (float(size.removesuffix("px")) for size in sizes)
    assert controls and min(controls) >= body, sizes


# An element's text as the lines it is drawn on (each character placed by its own box).
_LINES = """(element) => {
  const lines = [];
  let last = null;
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const top = Math.round(range.getBoundingClientRect().top);
      if (last === null || top > last) lines.push("");
      lines[lines.length - 1] += node.data[i];
      last = top;
    }
  }
  return lines;
}"""


def _lines(page: Page, selector: str) -> list[list[str]]:
    """The lines of each element `selector` finds."""
    return [cast("list[str]", e.evaluate(_LINES)) for e in page.query_selector_all(selector)]


def _scrolls_sideways(page: Page) -> bool:
    return cast(
        bool,
        page.evaluate(
            "document.documentElement.scrollWidth > document.documentElement.clientWidth"
        ),
    )


def test_on_a_phone_a_url_never_breaks_in_its_scheme(consent_page: Page) -> None:
    page = consent_page
    for width in range(300, 430):
        page.set_viewport_size({"width": width, "height": 800})
        (lines,) = _lines(page, "#destination code")
        assert lines[0].startswith("https://"), (width, lines)
        assert not _scrolls_sideways(page), width


def test_on_a_phone_client_ids_stay_whole(world: World, page: Page) -> None:
    page.goto(world.server.base_url + "/login?returnto=/account/applications")
    log_in(page, world.username, world.password)
    page.wait_for_selector("#register-form")
    for width in (320, 390):
        page.set_viewport_size({"width": width, "height": 800})
        broken = [lines for lines in _lines(page, "code.client-id") if len(lines) != 1]
        assert not broken, (width, broken)
        cut = page.eval_on_selector_all(
            "code.client-id", "codes => codes.filter(c => c.scrollWidth > c.clientWidth).length"
        )
        assert cut == 0, f"{cut} client ids cut off at {width} px"
        assert not _scrolls_sideways(page), width
