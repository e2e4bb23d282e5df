"""HTML pages as the suite reads them: the one parser for forms, list rows, codes shown on a
page, secret inputs and the places a page shows secrets in, addressed by CSS selectors.

BeautifulSoup with soupsieve (on the stdlib's `html.parser`), chosen over selectolax and
lxml + cssselect because soupsieve implements the CSS Selectors level 4 syntax that Chromium
(the browser driver's Playwright locators) accepts too: `:has()`, `:is()`, the `i` flag of
attribute selectors. A preset's selector therefore means the same to the form driver and to
the browser, with no translation in between; a bad selector is a `SelectorSyntaxError` naming
it. Both packages are pure-Python wheels (no C build on any platform) and well kept.

Speed: building the tree is most of a page's cost (~1 ms per kB), and a page is read several
times (masked for the evidence, then searched by the driver), so a page is parsed once and the
tree kept for the next reader (`soup`, a small cache by text; nothing mutates a tree). The
inputs the evidence masks are read with the tokenizer alone (`inputs`: no tree, no selector),
and both packages are imported on first use (a run that reads no page never loads them).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import TYPE_CHECKING, TypeGuard
from urllib.parse import urljoin

if TYPE_CHECKING:
    from bs4 import BeautifulSoup, Tag


@functools.lru_cache(maxsize=8)
def soup(html: str) -> BeautifulSoup:
    """A parsed page (attributes kept as written: `class` is one string, as in the DOM); the
    same tree for the same text, so callers must not change it."""
    from bs4 import BeautifulSoup

    return BeautifulSoup(html, "html.parser", multi_valued_attributes=None)


def check_selector(selector: str) -> None:
    """Raise SelectorSyntaxError (a ValueError) unless selector is valid CSS."""
    import soupsieve

    soupsieve.compile(selector)


def _is_tag(node: object) -> TypeGuard[Tag]:
    from bs4 import Tag

    return isinstance(node, Tag)


@dataclass
class Form:
    """A form as a browser would submit it: its attributes, its fields and its buttons."""

    attrs: dict[str, str]
    fields: list[tuple[str, str]] = field(default_factory=list)
    buttons: list[tuple[str, str]] = field(default_factory=list)
    #: Whether the form has a password input: a login form, whatever it is called.
    password: bool = False
    node: Tag | None = field(default=None, repr=False, compare=False)

    def field(self, name: str) -> str | None:
        """Value of a named field (first one)."""
        return next((v for k, v in self.fields if k == name), None)

    def button(self, selector: str = "") -> tuple[str, str] | None:
        """The (name, value) of the button a selector picks in this form (empty: the first
        named button); None for a form without one."""
        if not selector:
            return self.buttons[0] if self.buttons else None
        found = self.node.select_one(selector) if self.node is not None else None
        if found is None or not found.get("name"):
            raise LookupError(f"form has no button {selector!r} (has {self.buttons})")
        return (_attr(found, "name"), _attr(found, "value"))

    def submission(
        self, button: tuple[str, str] | None = None, **values: str
    ) -> list[tuple[str, str]]:
        """Fields to post when clicking `button`, with some fields filled in."""
        data = [(k, values.get(k, v)) for k, v in self.fields]
        data += [(k, v) for k, v in values.items() if k not in dict(self.fields)]
        return [*data, button] if button else data


def _attr(node: Tag, name: str, default: str = "") -> str:
    value = node.get(name)
    return default if value is None else str(value)


def _form(node: Tag) -> Form:
    form = Form(attrs={k: str(v) for k, v in node.attrs.items()}, node=node)
    for control in node.find_all(["input", "button"]):
        if not _is_tag(control) or control.get("name") is None:
            continue
        name = _attr(control, "name")
        kind = _attr(control, "type", "submit" if control.name == "button" else "text").lower()
        if kind in ("submit", "image"):
            form.buttons.append((name, _attr(control, "value")))
        elif kind in ("checkbox", "radio"):
            if control.has_attr("checked"):
                form.fields.append((name, _attr(control, "value", "on")))
        elif kind not in ("button", "reset", "file"):
            form.fields.append((name, _attr(control, "value")))
            form.password |= kind == "password"
    return form


def parse_forms(html: str) -> list[Form]:
    """Every form of a page."""
    return [_form(node) for node in soup(html).find_all("form") if _is_tag(node)]


def find_forms(html: str, selector: str) -> list[Form]:
    """The forms a CSS selector picks (an element inside a form stands for its form)."""
    forms: list[Tag] = []
    for node in soup(html).select(selector):
        form = node if node.name == "form" else node.find_parent("form")
        if form is not None and not any(form is f for f in forms):
            forms.append(form)
    return [_form(node) for node in forms]


def find_form(html: str, selector: str) -> Form | None:
    """The first form a selector picks."""
    forms = find_forms(html, selector)
    return forms[0] if forms else None


def login_forms(html: str) -> list[Form]:
    """Forms with a password input: what any login page has, whatever its preset says."""
    return [form for form in parse_forms(html) if form.password]


def post_forms(html: str) -> list[Form]:
    """Forms that post with a button: where a user decides something (consent, confirm)."""
    return [
        form
        for form in parse_forms(html)
        if form.attrs.get("method", "get").lower() == "post" and form.buttons
    ]


def describe_forms(html: str) -> str:
    """The forms of a page in a line, for a setup error that says what the driver saw."""
    forms = parse_forms(html)
    if not forms:
        return "no forms"
    return "; ".join(
        f"<form {' '.join(f'{k}={v!r}' for k, v in form.attrs.items())}> fields "
        f"{[k for k, _ in form.fields]} buttons {form.buttons}"
        for form in forms
    )


def text_of(html: str, selector: str) -> str | None:
    """The text of the first element a selector picks (a code shown on a page), stripped."""
    node = soup(html).select_one(selector)
    return node.get_text().strip() if node is not None else None


def inputs(html: str) -> list[tuple[str, str]]:
    """Name and value of every input with both (what a page hands back to the service), in
    page order: what `soup(html).select("input[name][value]")` picks, read by the same
    tokenizer without building the tree."""
    if "<input" not in html.lower():
        return []
    reader = _InputReader()
    reader.feed(html)
    reader.close()
    return reader.found


class _InputReader(HTMLParser):
    """Collects (name, value) of input tags that have both, as BeautifulSoup would see them
    (same tokenizer; a repeated attribute: the last one; a bare attribute: empty)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "input":
            return
        values = dict(attrs)
        if "name" in values and "value" in values:
            self.found.append((values["name"] or "", values["value"] or ""))


def revoke_links(html: str, page_url: str, app_name: str, link: str) -> list[str]:
    """Absolute addresses of the links a selector picks in the rows (table rows, list items)
    that have a cell naming the application: the "link per grant" style of the user's page
    (musicbrainz-server)."""
    found = []
    for row in soup(html).select("tr, li"):
        cells = row.find_all(["td", "th"]) if row.name == "tr" else [row]
        if app_name in (" ".join(cell.get_text().split()) for cell in cells):
            found += [urljoin(page_url, _attr(a, "href")) for a in row.select(link)]
    return found


#: A label that names a secret ("Client secret", "OAuth client secret", "client_secret").
_SECRET_LABEL = re.compile(r"secret", re.IGNORECASE)
#: "...secret: VALUE" written in running text.
_SECRET_IN_TEXT = re.compile(r"secret\W{0,3}[:=]\s*([^\s<>\"']{6,})", re.IGNORECASE)
#: A label is a few words; a secret is one word.
_LABEL_WORDS = 4
_ONE_WORD = re.compile(r"\S{4,}")
#: What may hold the value beside a label of each kind (never another heading).
_SHOWN_VALUE = ("input", "textarea", "code", "span", "kbd", "samp", "pre")
_VALUE_BESIDE = {"th": ("td",), "dt": ("dd",), "label": _SHOWN_VALUE}
_VALUE_BESIDE |= {"strong": _SHOWN_VALUE, "b": _SHOWN_VALUE}


def secret_places(html: str) -> list[str]:
    """Values a page shows in places labelled as secrets, whatever they are: the cells of a
    table column whose heading names a secret (the user's applications page of
    musicbrainz-server lists the Client Secret of every application the account owns), the
    value beside such a label (a row heading, a term, a form label), a field so named, the
    members so named of JSON a script carries, and "secret: value" in running text."""
    if not _SECRET_LABEL.search(html):
        return []
    tree = soup(html)
    found = [*_secret_columns(tree), *_beside_secret_labels(tree), *_secret_fields(tree)]
    found += _secret_json(tree) + _SECRET_IN_TEXT.findall(tree.get_text(" "))
    return [value for value in found if _ONE_WORD.fullmatch(value)]


def _names_a_secret(label: str) -> bool:
    return bool(_SECRET_LABEL.search(label)) and len(label.split()) <= _LABEL_WORDS


def _secret_columns(tree: BeautifulSoup) -> list[str]:
    """The cells under a column heading that names a secret."""
    found = []
    for table in tree.find_all("table"):
        rows = [row for row in table.find_all("tr") if _is_tag(row)]
        heading = next((row for row in rows if row.find("th")), None)
        if heading is None:
            continue
        titles = [cell.get_text(" ", strip=True) for cell in heading.find_all(["th", "td"])]
        columns = [i for i, title in enumerate(titles) if _names_a_secret(title)]
        for row in rows:
            cells = row.find_all(["td", "th"])
            if row is not heading:
                found += [cells[i].get_text(strip=True) for i in columns if i < len(cells)]
    return found


def _beside_secret_labels(tree: BeautifulSoup) -> list[str]:
    """The value beside a label that names a secret (`<th>Client secret</th><td>...`)."""
    found = []
    for label in tree.find_all(list(_VALUE_BESIDE)):
        if not _is_tag(label) or not _names_a_secret(label.get_text(" ", strip=True)):
            continue
        target = label.find_next_sibling()
        if label.name == "label" and label.get("for"):
            target = tree.find(id=_attr(label, "for")) or target
        if _is_tag(target) and target.name in _VALUE_BESIDE[label.name]:
            found.append(_attr(target, "value") or target.get_text(strip=True))
    return found


def _secret_fields(tree: BeautifulSoup) -> list[str]:
    found = []
    for field_node in tree.find_all(["input", "textarea"]):
        names = f"{_attr(field_node, 'name')} {_attr(field_node, 'id')}"
        if _is_tag(field_node) and _SECRET_LABEL.search(names):
            found.append(_attr(field_node, "value") or field_node.get_text(strip=True))
    return found


def _secret_json(tree: BeautifulSoup) -> list[str]:
    found: list[str] = []
    for script in tree.find_all("script"):
        text = script.string if _is_tag(script) else None
        if not text or not _SECRET_LABEL.search(text):
            continue
        try:
            _collect_secret_members(json.loads(text), found)
        except ValueError:
            continue
    return found


def _collect_secret_members(value: object, found: list[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and _SECRET_LABEL.search(str(key)):
                found.append(item)
            else:
                _collect_secret_members(item, found)
    elif isinstance(value, list):
        for item in value:
            _collect_secret_members(item, found)
