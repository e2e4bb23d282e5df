"""An application's name cannot fake the consent page.

The attack: register an application whose name holds U+202E (right-to-left override). On the
consent page the override ran past the name, so "(registered by mallory)" read backwards,
and a name could hold its own "registered by ..." or a line break. Now the CLI and the form
refuse such names, each with its reason beside the name field; a name stored before the rules
is defused when shown; and every name is isolated (`<bdi>`), its owner on a line of its own.
"""

from __future__ import annotations

import itertools
import secrets
import sqlite3
from urllib.parse import urlencode

import pytest

from reference_server.launcher import ServerError
from steps.http.html import soup, text_of
from tests.support.user_agent import UserAgent, find_form

from .helpers import App, World, authorize_params

REFUSED = [  # (name, what the reason must say)
    ("Tagger\u202e", "U+202E"),  # right-to-left override
    ("Tagger\u2067x", "U+2067"),  # right-to-left isolate
    ("Tag\u200fger", "U+200F"),  # right-to-left mark
    ("Tag\u200bger", "U+200B"),  # zero width space
    ("Tag\ufeffger", "U+FEFF"),
    ("Tagger\n(registered by MusicBrainz)", "U+000A"),
    ("Tagger\x1b[2J", "U+001B"),
    ("Tagger\u2028Pro", "U+2028"),  # line separator
    ("Tag\u00adger", "U+00AD"),  # soft hyphen: invisible
    ("Tagger\u3164", "U+3164"),  # Hangul filler: draws nothing
    ("P\u0430yPal", "scripts"),  # a Cyrillic "а" among Latin letters
    ("Spotify \u03bf", "scripts"),  # a Greek omicron
    ("Z\u0301\u0302\u0303\u0304\u0305algo", "combining marks"),  # 4 after NFKC
    ("x" * 65, "1 to 64"),
    ("   ", "1 to 64"),
]
ACCEPTED = [  # (name as typed, as stored and shown)
    ("\uff34\uff41\uff47\uff47\uff45\uff52  Pro", "Tagger Pro"),  # full-width letters, 2 spaces
    ("\u6771\u4eac\u30bf\u30ef\u30fc Tagger", "\u6771\u4eac\u30bf\u30ef\u30fc Tagger"),
    ("\u05e2\u05d1\u05e8\u05d9\u05ea 2", "\u05e2\u05d1\u05e8\u05d9\u05ea 2"),  # Hebrew
    ("Caf\u00e9 Tagger", "Caf\u00e9 Tagger"),
]
#: A refused field as the page must show it: the reason just before it, the field pointing to it.
_FIELD_ERROR = (
    'p.error.field-error[role="alert"]#error-message'
    ' + input[type="text"][aria-invalid="true"][aria-describedby="error-message"]'
)


def _field_error(page: str) -> tuple[str, str] | None:
    """(the refused field's id, the reason beside it), when the page shows one so."""
    field = soup(page).select_one(_FIELD_ERROR)
    return None if field is None else (str(field.get("id")), text_of(page, "#error-message") or "")


def _outside_the_name_field(page: str) -> str:
    """Every text and attribute value of the page but what the name field holds."""
    tree = soup(page)
    field = tree.select_one('input[type="text"]#name')
    values = [
        str(v) for node in tree.find_all(True) if node is not field for v in node.attrs.values()
    ]
    return "\n".join([*map(str, tree.find_all(string=True)), *values])


@pytest.fixture(scope="module")
def owner(site: World):
    browser = site.agent()
    browser.log_in()
    yield browser
    browser.close()


def _register(owner: UserAgent, name: str) -> tuple[int, str]:
    page = owner.http.get("/account/applications").text
    return _post(owner, find_form(page, "register-form").csrf_token, name)


def _post(owner: UserAgent, csrf: str, name: str) -> tuple[int, str]:
    data = {"csrf_token": csrf, "name": name, "type": "public", "redirect_uri": "http://[::1]/"}
    answer = owner.http.post("/account/applications", data=data)
    return answer.status_code, answer.text


@pytest.mark.parametrize(("name", "reason"), REFUSED)
def test_the_form_refuses_a_name_that_fakes_the_page_beside_the_field(
    owner: UserAgent, name: str, reason: str
):
    status, page = _register(owner, name)
    found = _field_error(page)
    assert status == 400 and found, page[-1500:]
    assert found[0] == "name" and reason in found[1]
    # What was typed stays in its field, to be corrected there, and nowhere else.
    outside = _outside_the_name_field(page)
    assert "\u202e" not in outside and "\n(registered by" not in outside


@pytest.mark.parametrize(("name", "shown"), ACCEPTED)
def test_names_are_normalised_and_other_scripts_welcome(owner: UserAgent, name: str, shown: str):
    unique = f"{secrets.randbelow(10**6)} "  # digits go with any script
    status, page = _register(owner, unique + name)
    assert status == 200, page[-1500:]
    assert unique + shown in [name.get_text() for name in soup(page).select("bdi.name")]


@pytest.mark.parametrize(("name", "reason"), [REFUSED[0], REFUSED[3], REFUSED[10], REFUSED[13]])
def test_the_cli_refuses_them_too(site: World, name: str, reason: str):
    with pytest.raises(ServerError) as refused:
        site.server.add_app(site.username, name, "public", "http://localhost/cb")
    assert reason in str(refused.value)


def test_an_edit_cannot_bring_such_a_name_back(owner: UserAgent, site: World):
    app = site.new_app("public")
    path = f"/account/applications/{app.client_id}/edit"
    form = find_form(owner.http.get(path).text, "edit-form")
    data = {"csrf_token": form.csrf_token, "name": "Tagger\u202e", "redirect_uri": "http://[::1]/"}
    answer = owner.http.post(path, data=data)
    found = _field_error(answer.text)
    assert answer.status_code == 400 and found and found[0] == "name"


# --- names stored before the rules ------------------------------------------------------------

LEGACY = "Tagger\u202e (registered by MusicBrainz)"


def stored_name(site: World, app: App, name: str) -> None:
    """Give an application a name the rules now refuse, as an older database may hold."""
    db = sqlite3.connect(site.database, timeout=10)
    try:
        with db:
            db.execute(
                "UPDATE applications SET name = ? WHERE client_id = ?", (name, app.client_id)
            )
    finally:
        db.close()


def test_a_stored_name_is_isolated_and_defused_on_every_page(owner: UserAgent, site: World):
    app = site.new_app("confidential")
    stored_name(site, app, LEGACY)
    consent = owner.open_authorize(authorize_params(app)).text
    shown = '<bdi class="name">Tagger\ufffd (registered by MusicBrainz)</bdi>'
    assert f'id="application-name">{shown}</p>' in consent
    owners = [name.get_text() for name in soup(consent).select("#application-owner bdi.name")]
    assert owners == [site.username]
    listing = owner.http.get("/account/applications").text
    login = owner.http.get("/login?" + urlencode({"returnto": _authorize_path(app)})).text
    for page in (consent, listing, login):
        assert "\u202e" not in page
    assert shown in listing


def _authorize_path(app: App) -> str:
    return "/oauth2/authorize?" + urlencode(authorize_params(app))


# --- what Chromium draws ----------------------------------------------------------------------

# The x position of each letter of the first text under `selector` that holds `words`.
_LETTER_XS = """([selector, words]) => {
  const root = document.querySelector(selector);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(words);
    if (at < 0) continue;
    const xs = [];
    for (let i = at; i < at + words.length; i++) {
      if (node.data[i] === ' ') continue;
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      xs.push(range.getBoundingClientRect().left);
    }
    return xs;
  }
  return null;
}"""


def _reads_left_to_right(page, selector: str, words: str) -> bool:
    xs = page.evaluate(_LETTER_XS, [selector, words])
    assert xs, f"{words!r} not found under {selector}"
    return all(a < b for a, b in itertools.pairwise(xs))


@pytest.mark.browser
def test_the_owner_label_reads_in_order_whatever_the_name(site: World):
    """The attack itself, as a person sees it: before the fix, Chromium drew "(registered by
    alice)" right to left after a name ending in U+202E."""
    from tests.support.browser import chromium_page

    app = site.new_app("confidential")
    stored_name(site, app, "Tagger\u202e")
    with chromium_page() as page:
        page.goto(site.server.base_url + _authorize_path(app))
        in_order = {"login page": _reads_left_to_right(page, "#asking-application", "egistered by")}
        page.fill("#username", site.username)
        page.fill("#password", site.password)
        page.click("#login-form button[type=submit]")
        page.wait_for_selector("#consent-form")
        in_order["consent page, owner"] = _reads_left_to_right(
            page, "#application-owner", "egistered by"
        )
        in_order["consent page, after"] = _reads_left_to_right(page, "main", "It asks to")
    assert all(in_order.values()), in_order
