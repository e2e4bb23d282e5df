"""The applications a user has registered (spec 2.1): list, register, edit, reset, delete.

Reset and delete ask first and answer with a redirect (a reload never repeats them); the
secret of a reset reaches the next page through `flash`.
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .. import inbound
from ..accounts import (
    AccountError,
    Application,
    add_application,
    application_by_client_id,
    applications_of,
    delete_application,
    reset_secret,
    update_application,
)
from ..errors import PageError
from ..state import ServerState
from . import flash, sessions
from .account import after, application_form, notice_of, require_login
from .forms import checked_form
from .html import confirm_button, esc, field, for_screen_readers, hidden, page

APPLICATIONS = "/account/applications"


def _application_row(app: Application, csrf: str) -> str:
    fields = hidden("csrf_token", csrf) + hidden("client_id", app.client_id)
    reset = confirm_button(
        f"{APPLICATIONS}/reset-secret",
        "Reset secret",
        app.name,
        f"{app.name} gets a new Client Secret; the current one stops working at once.",
        fields,
    )
    delete = confirm_button(
        f"{APPLICATIONS}/delete",
        "Delete",
        app.name,
        f"{app.name} is deleted with every authorization users gave it: its tokens stop "
        "working at once. This cannot be undone.",
        fields,
    )
    edit = (
        f'<a href="{APPLICATIONS}/{quote(app.client_id, safe="")}/edit">'
        f"Edit{for_screen_readers(' ' + app.name)}</a>"
    )
    return f"""<tr class="application"><td>{esc(app.name)}</td><td>{esc(app.type)}</td>
<td><code class="client-id">{esc(app.client_id)}</code></td><td>{esc(app.redirect_uri)}</td>
<td><div class="actions">{edit}{reset}{delete}</div></td></tr>"""


def _register_form(csrf: str, values: dict[str, str]) -> str:
    kind = values.get("type", "confidential")

    def option(value: str, label: str) -> str:
        selected = " selected" if kind == value else ""
        return f'<option value="{value}"{selected}>{label}</option>'

    redirect_uri = field(
        "redirect_uri",
        "Redirect URI",
        values.get("redirect_uri", ""),
        required="",
        placeholder="https://example.org/callback or http://localhost/callback",
    )
    return f"""<h2>Register an application</h2>
<form id="register-form" method="post" action="{APPLICATIONS}">
{hidden("csrf_token", csrf)}
{field("name", "Name", values.get("name", ""), required="")}
<label for="type">Type</label>
<select id="type" name="type">
{option("confidential", "Confidential (web application on a server)")}
{option("public", "Public (installed desktop or in-browser application)")}
</select>
{redirect_uri}
<button type="submit" class="primary">Register</button>
</form>"""


def _registered_page(
    state: ServerState,
    session: sessions.Session,
    notice: str = "",
    status: int = 200,
    values: dict[str, str] | None = None,
) -> Response:
    assert session.user is not None
    rows = "".join(
        _application_row(a, session.csrf) for a in applications_of(state.store, session.user)
    )
    listing = (
        '<table><tr><th scope="col">Name</th><th scope="col">Type</th>'
        '<th scope="col">Client ID</th><th scope="col">Redirect URI</th>'
        '<th scope="col"><span class="visually-hidden">Actions</span></th>'
        f"</tr>{rows}</table>"
        if rows
        else "<p>You have not registered any application.</p>"
    )
    return page(
        "Applications you have registered",
        notice + listing + _register_form(session.csrf, values or {}),
        viewer=sessions.viewer(session),
        status=status,
    )


def _secret_notice(client_id: str, secret: str, name: str = "") -> str:
    about = f"<p>New credentials of <strong>{esc(name)}</strong>:</p>" if name else ""
    return f"""<div class="notice" role="status" id="new-credentials">{about}
<p>Client ID: <code id="new-client-id">{esc(client_id)}</code></p>
<p>Client Secret: <code id="new-client-secret">{esc(secret)}</code></p>
<p>Copy the secret now: it is shown only once.</p></div>"""


async def registered(request: Request) -> Response:
    state = inbound.server(request)
    session = require_login(state, request)
    if isinstance(session, Response):
        return session
    message = flash.read(state, request, session)
    notice = notice_of(request)
    if message and {"client_id", "secret"} <= set(message):
        notice = _secret_notice(message["client_id"], message["secret"], message.get("name", ""))
    response = _registered_page(state, session, notice)
    return flash.forget(response) if request.cookies.get(flash.COOKIE) else response


async def register(request: Request) -> Response:
    state = inbound.server(request)
    session, form = await checked_form(state, request)
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
        notice = f'<p class="error" role="alert" id="error-message">{esc(error)}</p>'
        return _registered_page(state, session, notice, status=400, values=form)
    notice = _secret_notice(created.application.client_id, created.client_secret)
    return _registered_page(state, session, notice)


async def reset_application_secret(request: Request) -> Response:
    form = await application_form(request, own=True)
    app = form.application
    secret = reset_secret(form.state.store, app)
    message = {"client_id": app.client_id, "secret": secret, "name": app.name}
    response = RedirectResponse(APPLICATIONS, status_code=303)
    return flash.attach(form.state, response, form.session, message)


async def delete(request: Request) -> Response:
    form = await application_form(request, own=True)
    delete_application(form.state.store, form.application)
    return after(APPLICATIONS, "deleted")


# editing one application -----------------------------------------------------------------


def _edit_page(
    session: sessions.Session,
    app: Application,
    values: dict[str, str],
    error: str = "",
    status: int = 200,
) -> Response:
    action = f"{APPLICATIONS}/{quote(app.client_id, safe='')}/edit"
    problem = f'<p class="error" role="alert" id="error-message">{esc(error)}</p>' if error else ""
    body = f"""{problem}<dl class="facts">
<dt>Client ID</dt><dd><code class="client-id">{esc(app.client_id)}</code></dd>
<dt>Type</dt><dd>{esc(app.type)} (fixed: it decides what a grant may hold)</dd></dl>
<form id="edit-form" method="post" action="{esc(action)}">
{hidden("csrf_token", session.csrf)}
{field("name", "Name", values.get("name", app.name), required="")}
{field("redirect_uri", "Redirect URI", values.get("redirect_uri", app.redirect_uri), required="")}
<p>Changing the redirect URI ends the authorization codes on their way to the old one, and
users are asked for their consent again. Tokens already issued keep working.</p>
<button type="submit" class="primary">Save</button>
</form>
<p><a href="{APPLICATIONS}">Back to your applications</a></p>"""
    return page(f"Edit {app.name}", body, viewer=sessions.viewer(session), status=status)


async def edit_page(request: Request) -> Response:
    state = inbound.server(request)
    session = require_login(state, request)
    if isinstance(session, Response):
        return session
    assert session.user is not None
    app = application_by_client_id(state.store, request.path_params["client_id"])
    if app is None or app.owner_id != session.user.id:
        raise PageError("You have no such application.", status=404)
    return _edit_page(session, app, {})


async def edit(request: Request) -> Response:
    form = await application_form(request, request.path_params["client_id"], own=True)
    name, uri = form.fields.get("name", ""), form.fields.get("redirect_uri", "")
    try:
        update_application(form.state.store, form.application, name, uri, form.state.now())
    except AccountError as error:
        return _edit_page(form.session, form.application, form.fields, str(error), 400)
    return after(APPLICATIONS, "updated")
