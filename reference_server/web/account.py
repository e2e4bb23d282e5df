"""The user's own pages: applications authorized (manual revocation); what the account pages
share (login required, notices after a redirect, forms that name an application).

Every state change is a POST with the session's CSRF token that answers with a redirect
(POST-redirect-GET: a reload never repeats it), asks for confirmation first where it cannot be
undone, and names the application in its buttons' accessible names.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .. import grants, inbound, names
from ..accounts import (
    Account,
    Application,
    application_by_client_id,
)
from ..errors import PageError, SignInRequired
from ..state import ServerState
from . import sessions
from .forms import checked_form
from .html import ACTIONS, confirm_button, esc, hidden, name_html, page, row, table_of

_NOTICES = {
    "revoked": "Access revoked.",
    "updated": "Application saved.",
    "deleted": "Application deleted, with every authorization and token issued to it.",
}


def require_login(state: ServerState, request: Request) -> tuple[sessions.BrowserSession, Account]:
    """The session and its user; without one, `SignInRequired` sends the browser to log in."""
    session = sessions.load(state, request)
    if session is None or session.user is None:
        raise SignInRequired(request.url.path)
    return session, session.user


def _date(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M UTC")


def notice_of(request: Request) -> str:
    """A fixed sentence chosen by the redirect after a change (never text from the URL)."""
    text = next((t for key, t in _NOTICES.items() if request.query_params.get(key)), "")
    return f'<p class="notice" role="status" id="notice">{esc(text)}</p>' if text else ""


def after(path: str, notice: str) -> Response:
    return RedirectResponse(f"{path}?{notice}=1", status_code=303)


# applications the user has authorized ----------------------------------------------------

_COLUMNS = ("Application", "Scopes", "Access", "Since", ACTIONS)
# An authorization is listed once the application holds its access: after it exchanged the
# code it received. An out-of-band approval lists nothing until the code is pasted and used.
_WHEN_LISTED = """<p id="when-listed">An application you have just allowed appears here once it
has used the code it received. If this site showed you a code to copy, the application appears
after you have pasted the code into it.</p>"""


async def authorized(request: Request) -> Response:
    state = inbound.server(request)
    session, user = require_login(state, request)
    rows = []
    for item in grants.authorizations(state.store, user, state.now()):
        fields = (
            hidden("csrf_token", session.csrf)
            + hidden("client_id", item.client_id)
            + hidden("scope", item.scope)
        )
        name = names.shown(item.application_name)
        question = (
            f"{name} will lose this access at once: its tokens for these scopes stop working."
        )
        revoke = confirm_button(
            "/account/authorized/revoke", "Revoke access", name, question, fields, "revoke-form"
        )
        cells = (
            name_html(item.application_name),
            f"<code>{esc(item.scope)}</code>",
            "offline" if item.offline else "online",
            _date(item.since),
            revoke,
        )
        rows.append(row("authorization", _COLUMNS, cells))
    table = table_of(_COLUMNS, rows) if rows else "<p>You have not authorized any application.</p>"
    return page(
        "Applications you have authorized",
        notice_of(request) + table + _WHEN_LISTED,
        viewer=sessions.viewer(session),
    )


@dataclass
class ApplicationForm:
    """A checked form of the logged-in user that names an application by its client_id."""

    state: ServerState
    user: Account
    session: sessions.BrowserSession
    fields: dict[str, str]
    application: Application


async def application_form(
    request: Request, client_id: str | None = None, own: bool = False
) -> ApplicationForm:
    """The form, its user and the application it names (`own`: one the user registered).

    Raises PageError (a refused form, an unknown application), rendered by `errorpages`."""
    state = inbound.server(request)
    session, form = await checked_form(state, request)
    assert session.user is not None
    app = application_by_client_id(state.store, client_id or form.get("client_id", ""))
    if app is None or (own and app.owner_id != session.user.id):
        message = "You have no such application." if own else "There is no such application."
        raise PageError(message, status=404)
    return ApplicationForm(state, session.user, session, form, app)


async def revoke_authorization(request: Request) -> Response:
    form = await application_form(request)
    scope = form.fields.get("scope", "")
    grants.revoke_manually(form.state.store, form.state.now(), form.user, form.application, scope)
    return after("/account/authorized", "revoked")
