"""Reading a page's POST form and checking its CSRF token in one step."""

from __future__ import annotations

from starlette.requests import Request

from ..oauth.params import ParameterError, form_params
from ..state import ServerState
from . import sessions


class FormRejected(Exception):
    """The form cannot be processed; the message is shown to the user."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


async def checked_form(
    state: ServerState, request: Request, *, login_required: bool = True
) -> tuple[sessions.Session, dict[str, str]]:
    session = sessions.load(state, request)
    try:
        form = await form_params(request)
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
