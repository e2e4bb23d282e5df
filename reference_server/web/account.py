"""The user's own pages: applications authorized (manual revocation) and registered (2.1)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .. import grants, inbound
from ..accounts import (
    AccountError,
    Application,
    User,
    add_application,
    application_by_client_id,
    applications_of,
    reset_secret,
)
from ..state import ServerState
from . import sessions
from .forms import FormRejected, checked_form
from .html import error_page, esc, hidden, page


def _require_login(state: ServerState, request: Request) -> sessions.Session | Response:
    session = sessions.load(state, request)
    if session is None or session.user is None:
        return RedirectResponse("/login?returnto=" + request.url.path, status_code=303)
    return session


def _date(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M UTC")


async def authorized(request: Request) -> Response:
    state = inbound.server(request)
    session = _require_login(state, request)
    if isinstance(session, Response):
        return session
    assert session.user is not None
    rows = []
    for item in grants.authorizations(state.store, session.user, state.now()):
        rows.append(f"""<tr class="authorization">
<td>{esc(item.application_name)}</td><td><code>{esc(item.scope)}</code></td>
<td>{"offline" if item.offline else "online"}</td><td>{_date(item.since)}</td>
<td><form class="revoke-form" method="post" action="/account/authorized/revoke">
{hidden("csrf_token", session.csrf)}{hidden("client_id", item.client_id)}
{hidden("scope", item.scope)}
<button type="submit">Revoke access</button></form></td></tr>""")
    notice = ""
    if request.query_params.get("revoked"):
        notice = '<p class="notice" id="notice">Access revoked.</p>'
    table = (
        "<table><tr><th>Application</th><th>Scopes</th><th>Access</th><th>Since</th><th></th>"
        "</tr>" + "".join(rows) + "</table>"
        if rows
        else "<p>You have not authorized any application.</p>"
    )
    return page(
        "Applications you have authorized",
        notice + table,
        user_name=session.user.name,
        csrf=session.csrf,
    )


@dataclass
class _ApplicationForm:
    """A checked form of the logged-in user that names an application by its client_id."""

    state: ServerState
    user: User
    session: sessions.Session
    fields: dict[str, str]
    application: Application


async def _application_form(request: Request) -> _ApplicationForm | Response:
    state = inbound.server(request)
    try:
        session, form = await checked_form(state, request)
    except FormRejected as error:
        return error_page(str(error), status=error.status)
    assert session.user is not None
    app = application_by_client_id(state.store, form.get("client_id", ""))
    if app is None:
        return error_page("There is no such application.", status=404)
    return _ApplicationForm(state, session.user, session, form, app)


async def revoke_authorization(request: Request) -> Response:
    form = await _application_form(request)
    if isinstance(form, Response):
        return form
    scope = form.fields.get("scope", "")
    grants.revoke_manually(form.state.store, form.state.now(), form.user, form.application, scope)
    return RedirectResponse("/account/authorized?revoked=1", status_code=303)


def _registered_page(
    state: ServerState, session: sessions.Session, notice: str = "", status: int = 200
) -> Response:
    assert session.user is not None
    rows = "".join(
        f"""<tr class="application"><td>{esc(app.name)}</td><td>{esc(app.type)}</td>
<td><code class="client-id">{esc(app.client_id)}</code></td><td>{esc(app.redirect_uri)}</td>
<td><form method="post" action="/account/applications/reset-secret">
{hidden("csrf_token", session.csrf)}{hidden("client_id", app.client_id)}
<button type="submit">Reset secret</button></form></td></tr>"""
        for app in applications_of(state.store, session.user)
    )
    listing = (
        "<table><tr><th>Name</th><th>Type</th><th>Client ID</th><th>Redirect URL</th><th></th>"
        f"</tr>{rows}</table>"
        if rows
        else "<p>You have not registered any application.</p>"
    )
    body = f"""{notice}{listing}
<h2>Register an application</h2>
<form id="register-form" method="post" action="/account/applications">
{hidden("csrf_token", session.csrf)}
<label for="name">Name</label><input type="text" id="name" name="name" required>
<label for="type">Type</label>
<select id="type" name="type">
<option value="confidential">Confidential (web application on a server)</option>
<option value="public">Public (installed desktop or in-browser application)</option>
</select>
<label for="redirect_uri">Redirect URL</label>
<input type="text" id="redirect_uri" name="redirect_uri" required
 placeholder="https://example.org/callback or http://localhost/callback">
<button type="submit" class="primary">Register</button>
</form>"""
    return page(
        "Applications you have registered",
        body,
        user_name=session.user.name,
        csrf=session.csrf,
        status=status,
    )


def _secret_notice(client_id: str, secret: str) -> str:
    return f"""<div class="notice" id="new-credentials">
<p>Client ID: <code id="new-client-id">{esc(client_id)}</code></p>
<p>Client Secret: <code id="new-client-secret">{esc(secret)}</code></p>
<p>Copy the secret now: it is shown only once.</p></div>"""


async def registered(request: Request) -> Response:
    state = inbound.server(request)
    session = _require_login(state, request)
    if isinstance(session, Response):
        return session
    return _registered_page(state, session)


async def register(request: Request) -> Response:
    state = inbound.server(request)
    try:
        session, form = await checked_form(state, request)
    except FormRejected as error:
        return error_page(str(error), status=error.status)
    assert session.user is not None
    try:
        created = add_application(
            state.store,
            session.user,
            form.get("name", ""),
            form.get("type", ""),
            form.get("redirect_uri", ""),
            state.now(),
        )
    except AccountError as error:
        notice = f'<p class="error" id="error-message">{esc(error)}</p>'
        return _registered_page(state, session, notice, status=400)
    notice = _secret_notice(created.application.client_id, created.client_secret)
    return _registered_page(state, session, notice)


async def reset_application_secret(request: Request) -> Response:
    form = await _application_form(request)
    if isinstance(form, Response):
        return form
    app = form.application
    if app.owner_id != form.user.id:
        return error_page("You have no such application.", status=404)
    secret = reset_secret(form.state.store, app)
    return _registered_page(form.state, form.session, _secret_notice(app.client_id, secret))
