"""Just enough HTML form reading for the form driver (stdlib only: no parser dependency)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin


@dataclass
class Form:
    """A form as a browser would submit it: its attributes, its fields and its buttons."""

    attrs: dict[str, str]
    fields: list[tuple[str, str]] = field(default_factory=list)
    buttons: list[tuple[str, str]] = field(default_factory=list)
    #: Whether the form has a password input: a login form, whatever it is called.
    password: bool = False

    def matches(self, selector: str) -> bool:
        """Selectors: `#id`, `.class`, `name:value` (form name), `action:substring`,
        `field:name` (has a field so named) or `method:post`."""
        if selector.startswith("#"):
            return self.attrs.get("id") == selector[1:]
        if selector.startswith("."):
            return selector[1:] in self.attrs.get("class", "").split()
        kind, _, value = selector.partition(":")
        if kind == "name":
            return self.attrs.get("name") == value
        if kind == "action":
            return value in self.attrs.get("action", "")
        if kind == "field":
            return any(k == value for k, _ in self.fields)
        if kind == "method":
            return self.attrs.get("method", "get").lower() == value.lower()
        raise ValueError(f"unknown form selector {selector!r}")

    def field(self, name: str) -> str | None:
        """Value of a named field (first one)."""
        return next((v for k, v in self.fields if k == name), None)

    def submission(self, button: str, **values: str) -> list[tuple[str, str]]:
        """Fields to post when clicking `button` (`name=value`), with some fields filled in."""
        name, _, value = button.partition("=")
        if (name, value) not in self.buttons:
            raise LookupError(f"form has no button {button!r} (has {self.buttons})")
        data = [(k, values.get(k, v)) for k, v in self.fields]
        data += [(k, v) for k, v in values.items() if k not in dict(self.fields)]
        return [*data, (name, value)]


class _FormParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self._form: Form | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._form = Form(attrs=a)
            self.forms.append(self._form)
        elif self._form is not None and tag in ("input", "button") and "name" in a:
            self._control(tag, a)

    def _control(self, tag: str, a: dict[str, str]) -> None:
        assert self._form is not None
        kind = a.get("type", "submit" if tag == "button" else "text").lower()
        if kind in ("submit", "image"):
            self._form.buttons.append((a["name"], a.get("value", "")))
        elif kind in ("checkbox", "radio"):
            if "checked" in a:
                self._form.fields.append((a["name"], a.get("value", "on")))
        elif kind not in ("button", "reset", "file"):
            self._form.fields.append((a["name"], a.get("value", "")))
            self._form.password |= kind == "password"

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None


def parse_forms(html: str) -> list[Form]:
    """Every form of a page."""
    parser = _FormParser()
    parser.feed(html)
    parser.close()
    return parser.forms


def find_forms(html: str, selector: str) -> list[Form]:
    """The forms of a page that match a selector."""
    return [form for form in parse_forms(html) if form.matches(selector)]


def find_form(html: str, selector: str) -> Form | None:
    """The first form of a page that matches a selector."""
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


@dataclass
class Row:
    """A row of a list page (a table row or a list item): its text and its links."""

    cells: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)


class _RowParser(HTMLParser):
    ROWS = ("tr", "li")
    CELLS = ("td", "th")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[Row] = []
        self._row: Row | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.ROWS:
            self._row = Row()
            self.rows.append(self._row)
        if (tag in self.CELLS or tag == "li") and self._row is not None:
            self._cell = []
        elif tag == "a" and self._row is not None:
            href = dict(attrs).get("href")
            if href:
                self._row.links.append(href)

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if (tag in self.CELLS or tag == "li") and self._row is not None and self._cell is not None:
            self._row.cells.append(" ".join("".join(self._cell).split()))
            self._cell = None
        if tag in self.ROWS:
            self._row = None


def parse_rows(html: str) -> list[Row]:
    """The table rows and list items of a page with their cell texts and links."""
    parser = _RowParser()
    parser.feed(html)
    parser.close()
    return parser.rows


def revoke_links(html: str, page_url: str, app_name: str, marker: str) -> list[str]:
    """Absolute revoke links (their href contains `marker`) of the rows naming the application:
    the "link per grant" style of the user's page (musicbrainz-server)."""
    return [
        urljoin(page_url, link)
        for row in parse_rows(html)
        if app_name in row.cells
        for link in row.links
        if marker in link
    ]
