"""HTML pages: one layout, escaped values, no external assets, no scripts."""

from __future__ import annotations

from html import escape
from pathlib import Path

from starlette.responses import HTMLResponse, Response

STYLESHEET = (Path(__file__).parent / "site.css").read_text()


def esc(value: object) -> str:
    return escape(str(value), quote=True)


def hidden(name: str, value: str) -> str:
    return f'<input type="hidden" name="{esc(name)}" value="{esc(value)}">'


def page(
    title: str,
    body: str,
    *,
    user_name: str | None = None,
    csrf: str | None = None,
    status: int = 200,
) -> HTMLResponse:
    return HTMLResponse(
        f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)} - MusicBrainz OAuth</title>
<link rel="stylesheet" href="/static/site.css">
</head>
<body>
{_header(user_name, csrf)}
<main>
<h1>{esc(title)}</h1>
{body}
</main>
</body>
</html>
""",
        status_code=status,
    )


def _header(user_name: str | None, csrf: str | None) -> str:
    if user_name is None:
        who = '<a href="/login">Log in</a>'
    else:
        who = (
            f'<a href="/user/{esc(user_name)}">{esc(user_name)}</a>'
            '<a href="/account/authorized">Authorized applications</a>'
            '<a href="/account/applications">My applications</a>'
            '<form method="post" action="/logout">'
            f'{hidden("csrf_token", csrf or "")}<button type="submit">Log out</button></form>'
        )
    return f'<header><a href="/">MusicBrainz OAuth</a><span class="who">{who}</span></header>'


def error_page(message: str, status: int = 400, title: str = "Error") -> HTMLResponse:
    return page(title, f'<p class="error" id="error-message">{esc(message)}</p>', status=status)


def stylesheet(_request: object) -> Response:
    return Response(STYLESHEET, media_type="text/css", headers={"Cache-Control": "no-store"})
