"""The applications a user has registered (spec 2.1): list, register, edit, reset, delete.

Reset and delete ask first and answer with a redirect (a reload never repeats them); the
secret of a reset reaches the next page through `flash`.
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .. import inbound, names
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
from .html import (
    ACTIONS,
    Refusal,
    confirm_button,
    esc,
    field,
    for_screen_readers,
    hidden,
    name_html,
    page,
    row,
    table_of,
    url_html,
)

APPLICATIONS = "/account/applications"
_FIELDS = ("name", "type", "redirect_uri")  # of the registration form
_COLUMNS = ("Name", "Type", "Client ID", "Redirect URI", ACTIONS)


def _application_row(app: Application, csrf: str) -> str:
    fields = hidden("csrf_token", csrf) + hidden("client_id", app.client_id)
    name = names.shown(app.name)
    reset = confirm_button(
        f"{APPLICATIONS}/reset-secret",
        "Reset secret",
        name,
        f"{name} gets a new Client Secret; the current one stops working at once.",
        fields,
    )
    delete = confirm_button(
        f"{APPLICATIONS}/delete",
        "Delete",
        name,
        f"{name} is deleted with every authorization users gave it: its tokens stop "
        "working at once. This cannot be undone.",
        fields,
    )
    edit = (
        f'<a href="{APPLICATIONS}/{quote(app.client_id, safe="")}/edit">'
        f"Edit{for_screen_readers(' ' + name)}</a>"
    )
    cells = (
        name_html(app.name),
        esc(app.type),
        f'<code class="client-id">{esc(app.client_id)}</code>',
        url_html(app.redirect_uri),
        f'<div class="actions">{edit}{reset}{delete}</div>',
    )
    return row("application", _COLUMNS, cells)


def _register_form(csrf: str, values: dict[str, str], error: AccountError | None) -> str:
    """The form, with what the user typed and the refusal's reason beside its field."""
    kind = values.get("type", "confidential")
    problem = Refusal.of(error, _FIELDS)

    def option(value: str, label: str) -> str:
        selected = " selected" if kind == value else ""
        return f'<option value="{value}"{selected}>{label}</option>'

    redirect_uri = field(
        "redirect_uri",
        "Redirect URI",
        values.get("redirect_uri", ""),
        problem.text("redirect_uri"),
        required="",
        placeholder="https://example.org/callback or http://localhost/callback",
    )
    return f"""<h2>Register an application</h2>
<form id="register-form" method="post" action="{APPLICATIONS}">
{hidden("csrf_token", csrf)}{problem.html("")}
{field("name", "Name", values.get("name", ""), problem.text("name"), required="")}
<label for="type">Type</label>{problem.html("type")}
<select id="type" name="type"{problem.attrs("type")}>
{option("confidential", "Confidential (web application on a server)")}
{option("public", "Public (installed desktop or in-browser application)")}
</select>
{redirect_uri}
<button type="submit" class="primary">Register</button>
</form>"""


def _registered_page(
    state: ServerState,
    session: sessions.BrowserSession,
    notice: str = "",
    status: int = 200,
    values: dict[str, str] | None = None,
    error: AccountError | None = None,
) -> Response:
    assert session.user is not None
    rows = [_application_row(a, session.csrf) for a in applications_of(state.store, session.user)]
    listing = (
        table_of(_COLUMNS, rows) if rows else "<p>You have not registered any application.</p>"
    )
    return page(
        "Applications you have registered",
        notice + listing + _register_form(session.csrf, values or {}, error),
        viewer=sessions.viewer(session),
        status=status,
    )


def _secret_notice(client_id: str, secret: str, name: str = "") -> str:
    about = f"<p>New credentials of <strong>{name_html(name)}</strong>:</p>" if name else ""
    return f"""<div class="notice" role="status" id="new-credentials">{about}
<p>Client ID: <code id="new-client-id">{esc(client_id)}</code></p>
<p>Client Secret: <code id="new-client-secret">{esc(secret)}</code></p>
<p>Copy the secret now: it is shown only once.</p></div>"""


async def registered(request: Request) -> Response:
    state = inbound.server(request)
    session, _ = require_login(state, request)
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
        return _registered_page(state, session, status=400, values=form, error=error)
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
    session: sessions.BrowserSession,
    app: Application,
    values: dict[str, str],
    error: AccountError | None = None,
    status: int = 200,
) -> Response:
    action = f"{APPLICATIONS}/{quote(app.client_id, safe='')}/edit"
    problem = Refusal.of(error, ("name", "redirect_uri"))
    uri = values.get("redirect_uri", app.redirect_uri)
    body = f"""<dl class="facts">
<dt>Client ID</dt><dd><code class="client-id">{esc(app.client_id)}</code></dd>
<dt>Type</dt><dd>{esc(app.type)} (fixed: it decides what a grant may hold)</dd></dl>
<form id="edit-form" method="post" action="{esc(action)}">
{hidden("csrf_token", session.csrf)}{problem.html("")}
{field("name", "Name", values.get("name", app.name), problem.text("name"), required="")}
{field("redirect_uri", "Redirect URI", uri, problem.text("redirect_uri"), required="")}
<p>Changing the redirect URI ends the authorization codes on their way to the old one, and
users are asked for their consent again. Tokens already issued keep working.</p>
<button type="submit" class="primary">Save</button>
</form>
<p><a href="{APPLICATIONS}">Back to your applications</a></p>"""
    title = f"Edit {names.shown(app.name)}"
    return page(title, body, viewer=sessions.viewer(session), status=status)


async def edit_page(request: Request) -> Response:
    state = inbound.server(request)
    session, user = require_login(state, request)
    app = application_by_client_id(state.store, request.path_params["client_id"])
    if app is None or app.owner_id != user.id:
        raise PageError("You have no such application.", status=404)
    return _edit_page(session, app, {})


async def edit(request: Request) -> Response:
    form = await application_form(request, request.path_params["client_id"], own=True)
    name, uri = form.fields.get("name", ""), form.fields.get("redirect_uri", "")
    try:
        update_application(form.state.store, form.application, name, uri, form.state.now())
    except AccountError as error:
        return _edit_page(form.session, form.application, form.fields, error, 400)
    return after(APPLICATIONS, "updated")
