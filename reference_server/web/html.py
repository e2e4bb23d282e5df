"""HTML pages: one layout, escaped values, no external assets, no scripts."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

from starlette.responses import HTMLResponse, Response

SITE = "MusicBrainz OAuth"
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


def field(name: str, label: str, value: str = "", **attrs: str) -> str:
    """A labelled text input; `value` is what the user typed (kept when a form is refused)."""
    extra = "".join(f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"' for k, v in attrs.items())
    return (
        f'<label for="{esc(name)}">{esc(label)}</label>'
        f'<input type="text" id="{esc(name)}" name="{esc(name)}" value="{esc(value)}"{extra}>'
    )


def for_screen_readers(text: str) -> str:
    """Words a screen reader says and the eye does not need (the row already shows them)."""
    return f'<span class="visually-hidden">{esc(text)}</span>'


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
{_header(viewer)}
<main id="main">
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
            f'<a href="/user/{esc(viewer.name)}" id="viewer">{esc(viewer.name)}</a>'
            '<a href="/account/authorized">Authorized applications</a>'
            '<a href="/account/applications">My applications</a>'
            '<form method="post" action="/logout">'
            f'{hidden("csrf_token", viewer.csrf)}<button type="submit">Log out</button></form>'
        )
    return (
        f'<header><a href="/" class="site">{SITE}</a>'
        f'<nav class="who" aria-label="Account">{who}</nav></header>'
    )


def error_page(
    message: str, status: int = 400, title: str = "Error", viewer: Viewer | None = None
) -> HTMLResponse:
    return page(
        title,
        f'<p class="error" id="error-message">{esc(message)}</p>',
        status=status,
        viewer=viewer,
    )


def stylesheet(_request: object) -> Response:
    return Response(STYLESHEET, media_type="text/css", headers={"Cache-Control": "no-store"})


def favicon(_request: object) -> Response:
    """/favicon.ico, where browsers look by default; SVG, which they all read."""
    return Response(FAVICON, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})
