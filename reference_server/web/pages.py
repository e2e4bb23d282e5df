"""Log in, log out, the home page and users' public profiles."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, quote, urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .. import credentials, guard, inbound, names
from ..accounts import application_by_client_id, authenticate_user, user_by_id, user_by_name
from ..errors import PageError, ParameterError, TooManyGuesses
from ..state import ServerState
from . import sessions
from .forms import checked_form
from .html import SITE, esc, hidden, name_html, page, url_html

AUTHORIZE_PATH = "/oauth2/authorize"
SESSION_ENDED = "session-ended"  # ?why= of a login the consent form sent the user to


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


@dataclass(frozen=True)
class LoginContext:
    """What the login form shows besides its fields: where it leads and why it is shown."""

    returnto: str
    username: str = ""
    why: str = ""  # SESSION_ENDED: the consent form was sent after the session ended


def _asking_application(state: ServerState, returnto: str) -> str:
    """On the way to an authorization: which application asks, and who registered it.

    Only a registered application's name (and its owner's) is shown, never text taken from
    the link itself; whether the rest of the request is acceptable is checked after login.
    """
    parts = urlsplit(returnto)
    if parts.path != AUTHORIZE_PATH:
        return ""
    client_ids = parse_qs(parts.query).get("client_id", [])
    app = application_by_client_id(state.store, client_ids[0]) if len(client_ids) == 1 else None
    if app is None:
        return ""
    owner = user_by_id(state.store, app.owner_id)
    by = f" (registered by the account {name_html(owner.name)})" if owner else ""
    return (
        f'<p id="asking-application">Log in to continue to <strong>{name_html(app.name)}'
        f"</strong>{by}, which asks for access to your account. You will then see what it asks "
        "for and can allow or refuse it.</p>"
    )


def _login_form(
    state: ServerState,
    token: str,
    fresh: bool,
    context: LoginContext,
    message: str = "",
    status: int = 200,
) -> Response:
    notice = f'<p class="error" id="error-message">{esc(message)}</p>' if message else ""
    if context.why == SESSION_ENDED and not message:
        notice = (
            '<p class="error" id="error-message">Your session ended before you answered '
            "(it expired, or you logged out in another window): nothing was allowed or "
            "refused. Log in again to answer.</p>"
        )
    action = "/login?returnto=" + quote(context.returnto, safe="")
    focus = "" if context.username else " autofocus"
    body = f"""{notice}{_asking_application(state, context.returnto)}
<form id="login-form" method="post" action="{esc(action)}">
{hidden("csrf_token", token)}
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" required{focus}
 value="{esc(context.username)}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required
{" autofocus" if context.username else ""}>
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
    why = request.query_params.get("why", "")
    context = LoginContext(returnto, why=why if why == SESSION_ENDED else "")
    return _login_form(state, *sessions.login_token(request), context)


async def login(request: Request) -> Response:
    state = inbound.server(request)
    returnto = safe_return_path(request.query_params.get("returnto"))
    context = LoginContext(returnto)
    try:
        form = await inbound.form_params(request)
    except ParameterError as error:
        token, fresh = sessions.login_token(request)
        return _login_form(state, token, fresh, context, str(error), error.status)
    name, password = form.get("username", ""), form.get("password", "")
    context = LoginContext(returnto, username=name)
    if not sessions.login_token_ok(request, form.get("csrf_token")):
        message = "This form has expired (or did not come from this site). Try again."
        return _login_form(state, credentials.new_token(), True, context, message, status=403)
    token = form["csrf_token"]
    # ':' never occurs in a client_id: no clash with clients. The slot is reserved before the
    # scrypt work (a waiting address costs nothing) and given back if the password is right.
    throttle_key = guard.key(inbound.peer(request), "user:" + name)
    try:
        state.guard.reserve(throttle_key)
    except TooManyGuesses as refused:
        wait = refused.retry_after
        message = f"Too many failed logins from here for this user; try again in {wait} s."
        response = _login_form(state, token, False, context, message, status=429)
        response.headers["Retry-After"] = str(wait)
        return response
    user = await run_in_threadpool(authenticate_user, state.store, name, password)
    if user is None:
        message = "Incorrect username or password."
        return _login_form(state, token, False, context, message, 401)
    state.guard.release(throttle_key)
    new_session = sessions.log_in(state, sessions.load(state, request), user)
    response = RedirectResponse(returnto, status_code=303)
    return sessions.forget_login_token(sessions.attach(response, new_session))


async def logout(request: Request) -> Response:
    state = inbound.server(request)
    session, _ = await checked_form(state, request, login_required=False)
    sessions.delete(state, session)
    return sessions.forget(RedirectResponse("/", status_code=303))


async def home(request: Request) -> Response:
    state = inbound.server(request)
    session = sessions.load(state, request)
    if session is None or session.user is None:
        body = """<p>This is the reference server of the MusicBrainz OAuth 2.0 service.</p>
<p><a href="/login">Log in</a> to manage the applications you have registered or authorized.</p>"""
        return page(SITE, body)
    body = f"""<p>You are logged in as <strong>{name_html(session.user.name)}</strong>.</p>
<ul>
<li><a href="/account/authorized">Applications you have authorized</a></li>
<li><a href="/account/applications">Applications you have registered</a></li>
</ul>"""
    return page(SITE, body, viewer=sessions.viewer(session))


async def user_profile(request: Request) -> Response:
    state = inbound.server(request)
    session = sessions.load(state, request)
    user = user_by_name(state.store, request.path_params["name"])
    if user is None:
        raise PageError("There is no such user.", status=404, title="Not found")
    rows = [("Username", name_html(user.name)), ("Time zone", esc(user.timezone))]
    if user.website:
        rows.append(("Website", f"<bdi>{url_html(names.defused(user.website))}</bdi>"))
    if user.gender:
        rows.append(("Gender", f"<bdi>{esc(names.defused(user.gender))}</bdi>"))
    table = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return page(
        f"User {names.shown(user.name)}",
        f'<table id="profile">{table}</table>',
        viewer=sessions.viewer(session),
    )


async def not_found(request: Request, _: Exception) -> Response:
    """Any unknown address: a page of the site (header, way home), not a bare "Not Found"."""
    viewer = sessions.viewer_of(inbound.server(request), request)
    body = """<p class="error" id="error-message">There is no page at this address.</p>
<p>Go to the <a href="/">home page</a>.</p>"""
    return page("Page not found", body, status=404, viewer=viewer)
