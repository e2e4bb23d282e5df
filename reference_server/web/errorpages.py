"""How the pages answer errors: the service's error page, or a redirect to the client.

The renderers of `errors.PageError` and `errors.RedirectError`, registered once on the
application by `app.create_app`.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from ..errors import PageError, RedirectError
from ..redirects import OOB, with_params
from .html import error_page


def redirect_error_response(error: RedirectError) -> Response:
    """RFC 6749 4.1.2.1; out of band there is nowhere to redirect to: the user reads it."""
    if error.redirect_uri == OOB:
        return error_page(f"{error.error}: {error.description}", title="Authorization failed")
    values = {"error": error.error, "error_description": error.description}
    if error.state is not None:
        values["state"] = error.state
    return RedirectResponse(with_params(error.redirect_uri, values), status_code=302)


async def render_page_error(_request: Request, error: Exception) -> Response:
    assert isinstance(error, PageError)  # registered for PageError only
    return error_page(str(error), status=error.status, title=error.title)


async def render_redirect_error(_request: Request, error: Exception) -> Response:
    assert isinstance(error, RedirectError)  # registered for RedirectError only
    return redirect_error_response(error)
