"""The user's applications page and its revocation, as on musicbrainz.org: one line per
application and scope set holding a live access token (by display name, no client id), a
"Revoke access" link each, and a confirmation page with an unnamed post form; below, the
applications the account registered, each with its Client Secret."""

from __future__ import annotations

import html

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from tests.suite import mb_pages
from tests.suite.musicbrainz.model import Site
from tests.suite.musicbrainz.sessions import logged_in

LIST = "/account/applications"


async def applications(request: Request) -> Response:
    site: Site = request.app.state.site
    if logged_in(site, request) is None:
        return RedirectResponse("/login?returnto=" + LIST, status_code=302)
    body = mb_pages.applications_body(site.listed()) + registered_table(site.registered())
    return mb_pages.page("Applications", body)


def registered_table(registered: list[tuple[str, str, str, str]]) -> str:
    """musicbrainz-server's "Developer applications" table (root/account/applications): name,
    type, client id and the Client Secret of every application the account registered."""
    if not registered:
        return ""
    rows = "".join(
        f'<tr class="{"odd" if i % 2 == 0 else "even"}"><td>{html.escape(name)}</td>'
        f"<td>{html.escape(kind)}</td><td><code>{html.escape(client_id)}</code></td>"
        f"<td><code>{html.escape(secret)}</code></td>"
        '<td><a href="#">Edit</a> | <a href="#">Remove</a></td></tr>'
        for i, (name, kind, client_id, secret) in enumerate(registered)
    )
    return (
        "<h2>Developer applications</h2>"
        '<table class="tbl"><thead><tr><th>Application</th><th>Type</th>'
        "<th>OAuth client ID</th><th>OAuth client secret</th><th>Actions</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


async def revoke_access(request: Request) -> Response:
    site: Site = request.app.state.site
    session = logged_in(site, request)
    if session is None:
        return RedirectResponse("/login?returnto=" + LIST, status_code=302)
    row, bits = int(request.path_params["row"]), int(request.path_params["bits"])
    if request.method == "POST":
        form = await mb_pages.posted(request)
        if mb_pages.csrf_ok(session, form, "confirm.") and form.get("confirm.submit") == "1":
            site.revoke_listed(row, bits)
        return RedirectResponse(LIST, status_code=303)
    app = site.app(row=row)
    body = mb_pages.revoke_body(app.name if app else "?", session)
    return mb_pages.page("Revoke application access", body)
