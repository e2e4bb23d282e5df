"""Reading a page's POST form and checking its CSRF token in one step."""

from __future__ import annotations

from starlette.requests import Request

from .. import inbound
from ..errors import PageError, ParameterError
from ..state import ServerState
from . import sessions


class FormRejected(PageError):
    """The form cannot be processed; the message is shown to the user (on the error page)."""


async def checked_form(
    state: ServerState, request: Request, *, login_required: bool = True
) -> tuple[sessions.BrowserSession, dict[str, str]]:
    session = sessions.load(state, request)
    try:
        form = await inbound.form_params(request)
    except ParameterError as error:
        raise FormRejected(str(error), error.status) from None
    if session is None or not session.csrf_ok(form.get("csrf_token")):
        raise FormRejected(
            "This form has expired (or did not come from this site). Reload the page and try "
            "again.",
            status=403,
        )
    if login_required and session.user is None:
        raise FormRejected("Log in first.", status=403)
    return session, form
