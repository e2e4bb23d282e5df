"""Log in, log out, the home page and users' public profiles."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .. import credentials, guard, inbound
from ..accounts import authenticate_user, user_by_name
from ..errors import ParameterError, Throttled
from . import sessions
from .forms import FormRejected, checked_form
from .html import error_page, esc, hidden, page


def safe_return_path(value: str | None) -> str:
    """Only a path on this site: never another host (no open redirect through login)."""
    if not value or not value.startswith("/") or value.startswith(("//", "/\\")):
        return "/"
    if any(ord(c) < 0x20 or c == "\\" for c in value):
        return "/"
    parts = urlsplit(value)
    if parts.scheme or parts.netloc:
        return "/"
    return value


def _login_form(
    token: str, fresh: bool, returnto: str, message: str = "", status: int = 200
) -> Response:
    notice = f'<p class="error" id="error-message">{esc(message)}</p>' if message else ""
    action = "/login?returnto=" + quote(returnto, safe="")
    body = f"""{notice}
<form id="login-form" method="post" action="{esc(action)}">
{hidden("csrf_token", token)}
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit" class="primary">Log in</button>
</form>"""
    response = page("Log in", body, status=status)
    return sessions.attach_login_token(response, token) if fresh else response


async def login_page(request: Request) -> Response:
    state = inbound.server(request)
    session = sessions.load(state, request)
    returnto = safe_return_path(request.query_params.get("returnto"))
    if session is not None and session.user is not None:
        return RedirectResponse(returnto, status_code=303)
    return _login_form(*sessions.login_token(request), returnto)


async def login(request: Request) -> Response:
    state = inbound.server(request)
    returnto = safe_return_path(request.query_params.get("returnto"))
    try:
        form = await inbound.form_params(request)
    except ParameterError as error:
        return _login_form(*sessions.login_token(request), returnto, str(error), error.status)
    if not sessions.login_token_ok(request, form.get("csrf_token")):
        message = "This form has expired (or did not come from this site). Try again."
        return _login_form(credentials.new_token(), True, returnto, message, status=403)
    token = form["csrf_token"]
    name, password = form.get("username", ""), form.get("password", "")
    # ':' never occurs in a client_id: no clash with clients. The slot is reserved before the
    # scrypt work (a waiting address costs nothing) and given back if the password is right.
    throttle_key = guard.key(inbound.peer(request), "user:" + name)
    try:
        state.guard.reserve(throttle_key)
    except Throttled as refused:
        wait = refused.retry_after
        message = f"Too many failed logins from here for this user; try again in {wait} s."
        response = _login_form(token, False, returnto, message, status=429)
        response.headers["Retry-After"] = str(wait)
        return response
    user = await run_in_threadpool(authenticate_user, state.store, name, password)
    if user is None:
        return _login_form(token, False, returnto, "Incorrect username or password.", 401)
    state.guard.release(throttle_key)
    new_session = sessions.log_in(state, sessions.load(state, request), user)
    response = RedirectResponse(returnto, status_code=303)
    return sessions.forget_login_token(sessions.attach(response, new_session))


async def logout(request: Request) -> Response:
    state = inbound.server(request)
    try:
        session, _ = await checked_form(state, request, login_required=False)
    except FormRejected as error:
        return error_page(str(error), status=error.status)
    sessions.delete(state, session)
    return sessions.forget(RedirectResponse("/", status_code=303))


async def home(request: Request) -> Response:
    state = inbound.server(request)
    session = sessions.load(state, request)
    if session is None or session.user is None:
        body = """<p>This is the reference server of the MusicBrainz OAuth 2.0 service.</p>
<p><a href="/login">Log in</a> to manage the applications you have registered or authorized.</p>"""
        return page("MusicBrainz OAuth", body)
    body = f"""<p>You are logged in as <strong>{esc(session.user.name)}</strong>.</p>
<ul>
<li><a href="/account/authorized">Applications you have authorized</a></li>
<li><a href="/account/applications">Applications you have registered</a></li>
</ul>"""
    return page("MusicBrainz OAuth", body, user_name=session.user.name, csrf=session.csrf)


async def user_profile(request: Request) -> Response:
    state = inbound.server(request)
    user = user_by_name(state.store, request.path_params["name"])
    if user is None:
        return error_page("There is no such user.", status=404, title="Not found")
    session = sessions.load(state, request)
    rows = [("Username", esc(user.name)), ("Time zone", esc(user.timezone))]
    if user.website:
        rows.append(("Website", esc(user.website)))
    if user.gender:
        rows.append(("Gender", esc(user.gender)))
    table = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    viewer = session.user if session else None
    return page(
        f"User {user.name}",
        f'<table id="profile">{table}</table>',
        user_name=viewer.name if viewer else None,
        csrf=session.csrf if session else None,
    )
