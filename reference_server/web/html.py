"""HTML pages: one layout, escaped values, no external assets, no scripts."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path
from urllib.parse import quote

from starlette.responses import HTMLResponse, Response

from .. import names

SITE = "MusicBrainz OAuth"
ERROR_ID = "error-message"  # a page's one error; a refused field names it (aria-describedby)
STYLESHEET = (Path(__file__).parent / "site.css").read_text()
# An orange disc with a white key hole: small, inline (no package data), allowed by img-src.
FAVICON = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<circle cx="16" cy="16" r="15" fill="#ba4a00"/>
<circle cx="16" cy="12" r="5" fill="#fff"/><path d="M13 15h6l2 10h-10z" fill="#fff"/>
</svg>
"""


@dataclass(frozen=True)
class Viewer:
    """Who looks at a page: the header shows their name, their links and a logout form."""

    name: str
    csrf: str


def esc(value: object) -> str:
    return escape(str(value), quote=True)


def hidden(name: str, value: str) -> str:
    return f'<input type="hidden" name="{esc(name)}" value="{esc(value)}">'


def name_html(name: str) -> str:
    """A user's or an application's name in running text: isolated (`<bdi>`), so that no
    character of it can reorder the words around it, and shown through `names.shown`, which
    defuses a name stored before the name rules."""
    return f'<bdi class="name">{esc(names.shown(name))}</bdi>'


def url_html(url: str) -> str:
    """A URL that wraps where a person would break it: after "://", before "/", "?", "&" and
    "#", never inside its scheme (CSS breaks a piece only if it alone is wider than a line)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    pieces = [esc(scheme + sep)] if sep else []
    start = 0
    for at, char in enumerate(rest):
        if char in "/?&#" and at > start:
            pieces.append(esc(rest[start:at]))
            start = at
    pieces.append(esc(rest[start:]))
    return f'<code class="url">{"<wbr>".join(p for p in pieces if p)}</code>'


def field_error(message: str) -> str:
    """The reason a form was refused, placed beside its field (which points to it)."""
    return f'<p class="error field-error" role="alert" id="{ERROR_ID}">{esc(message)}</p>'


@dataclass(frozen=True)
class Refusal:
    """Why a form was refused, and beside which of its fields to say it ("": the form as a
    whole, said at its top)."""

    message: str = ""
    field: str = ""

    @classmethod
    def of(cls, error: Exception | None, fields: tuple[str, ...]) -> Refusal:
        """The refusal of `error` (its `field`, if the form shows that field)."""
        if error is None:
            return cls()
        field = getattr(error, "field", "")
        return cls(str(error), field if field in fields else "")

    def text(self, field: str) -> str:
        return self.message if self.message and self.field == field else ""

    def html(self, field: str) -> str:
        text = self.text(field)
        return field_error(text) if text else ""

    def attrs(self, field: str) -> str:
        """An input's attributes: marked invalid, described by the reason, focused."""
        if not self.text(field):
            return ""
        return f' aria-invalid="true" aria-describedby="{ERROR_ID}" autofocus'


def field(name: str, label: str, value: str = "", error: str = "", **attrs: str) -> str:
    """A labelled text input; `value` is what the user typed (kept when a form is refused),
    `error` why it was refused: shown between label and input, read with the field."""
    if error:
        attrs = {**attrs, "aria_invalid": "true", "aria_describedby": ERROR_ID, "autofocus": ""}
    extra = "".join(f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"' for k, v in attrs.items())
    return (
        f'<label for="{esc(name)}">{esc(label)}</label>'
        + (field_error(error) if error else "")
        + f'<input type="text" id="{esc(name)}" name="{esc(name)}" value="{esc(value)}"{extra}>'
    )


def for_screen_readers(text: str) -> str:
    """Words a screen reader says and the eye does not need (the row already shows them)."""
    return f'<span class="visually-hidden">{esc(text)}</span>'


ACTIONS = "Actions"  # a table's last column: its buttons need no visible heading


def table_of(columns: tuple[str, ...], rows: list[str]) -> str:
    """A table whose rows (`row`) become cards on a phone, each cell labelled by its column."""
    head = "".join(
        f'<th scope="col">{for_screen_readers(c) if c == ACTIONS else esc(c)}</th>' for c in columns
    )
    return f'<table class="cards"><tr class="head">{head}</tr>{"".join(rows)}</table>'


def row(css_class: str, columns: tuple[str, ...], cells: tuple[str, ...]) -> str:
    labelled = "".join(
        f"<td>{cell}</td>" if column == ACTIONS else f'<td data-label="{esc(column)}">{cell}</td>'
        for column, cell in zip(columns, cells, strict=True)
    )
    return f'<tr class="{esc(css_class)}">{labelled}</tr>\n'


def confirm_button(
    action: str, label: str, target: str, question: str, fields: str, form_class: str = ""
) -> str:
    """A state change that asks first, without scripts: the button opens a disclosure that
    says what will happen and holds the form. Both the button and the confirmation name the
    target (its accessible name says which application)."""
    css = f' class="{esc(form_class)}"' if form_class else ""
    of_target = for_screen_readers(" of " + target)
    confirm = esc("Yes, " + label[:1].lower() + label[1:]) + of_target
    return f"""<details class="confirm"><summary>{esc(label)}{of_target}</summary>
<p>{esc(question)}</p>
<form{css} method="post" action="{esc(action)}">
{fields}<button type="submit" class="danger">{confirm}</button>
</form></details>"""


def page(
    title: str,
    body: str,
    *,
    viewer: Viewer | None = None,
    user_name: str | None = None,
    csrf: str | None = None,
    status: int = 200,
) -> HTMLResponse:
    if viewer is None and user_name is not None:
        viewer = Viewer(user_name, csrf or "")
    full_title = SITE if title == SITE else f"{title} - {SITE}"
    return HTMLResponse(
        f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(full_title)}</title>
<link rel="icon" href="/favicon.ico" type="image/svg+xml">
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
<a class="skip-link" href="#main">Skip to main content</a>
{_header(viewer)}
<main id="main" tabindex="-1">
<h1>{esc(title)}</h1>
{body}
</main>
</body>
</html>
""",
        status_code=status,
    )


def _header(viewer: Viewer | None) -> str:
    if viewer is None:
        who = '<a href="/login">Log in</a>'
    else:
        who = (
            f'<a href="/user/{esc(quote(viewer.name, safe=""))}" id="viewer">'
            f"{name_html(viewer.name)}</a>"
            '<a href="/account/authorized">Authorized applications</a>'
            '<a href="/account/applications">My applications</a>'
            '<form method="post" action="/logout">'
            f'{hidden("csrf_token", viewer.csrf)}<button type="submit">Log out</button></form>'
        )
    return (
        f'<header><a href="/" class="site">{SITE}</a>'
        f'<nav class="who" aria-label="Account">{who}</nav></header>'
    )


HOME = '<a href="/">home page</a>'
# What a person can do after an error: every error page says it (a bare message is a dead end).
NEXT_STEPS = {
    "page": f"<p>Go back to the previous page and try again, or go to the {HOME}.</p>",
    "authorization": (
        "<p>This page shared nothing with the application. Go back to the application and "
        "start again from there.</p>"
        "<p>If this page comes back, the application is probably set up wrongly: tell its "
        "developer what this page says (the message above and this page's address). "
        "They can fix it; you cannot.</p>"
        f"<p>Or go to the {HOME} of this site.</p>"
    ),
    "refused": (
        "<p>You refused: the application received nothing from your account. You can close "
        f"this page, or go to the {HOME}.</p>"
    ),
}


def error_page(
    message: str,
    status: int = 400,
    title: str = "Error",
    viewer: Viewer | None = None,
    next_step: str = "page",
) -> HTMLResponse:
    """The message, then what to do now (`NEXT_STEPS`)."""
    return page(
        title,
        f'<p class="error" id="{ERROR_ID}">{esc(message)}</p>'
        f'<h2>What you can do</h2><div id="next-step">{NEXT_STEPS[next_step]}</div>',
        status=status,
        viewer=viewer,
    )


def stylesheet(_request: object) -> Response:
    """The pages' one stylesheet (cached by no one, as every answer that says nothing of
    caching: web/security.py)."""
    return Response(STYLESHEET, media_type="text/css")


def favicon(_request: object) -> Response:
    """/favicon.ico, where browsers look by default; SVG, which they all read."""
    return Response(FAVICON, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})
