"""Just enough HTML form reading for the form driver (stdlib only: no parser dependency)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Form:
    """A form as a browser would submit it: its attributes, its fields and its buttons."""

    attrs: dict[str, str]
    fields: list[tuple[str, str]] = field(default_factory=list)
    buttons: list[tuple[str, str]] = field(default_factory=list)

    def matches(self, selector: str) -> bool:
        """Selectors: `#id`, `.class`, `name:value` (form name) or `action:substring`."""
        if selector.startswith("#"):
            return self.attrs.get("id") == selector[1:]
        if selector.startswith("."):
            return selector[1:] in self.attrs.get("class", "").split()
        kind, _, value = selector.partition(":")
        if kind == "name":
            return self.attrs.get("name") == value
        if kind == "action":
            return value in self.attrs.get("action", "")
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
