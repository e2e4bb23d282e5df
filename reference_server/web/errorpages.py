"""How the pages answer errors: the service's error page, or a redirect to the client.

The renderers of `errors.PageError` and `errors.RedirectError`, registered once on the
application by `app.create_app`.
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .. import inbound
from ..errors import PageError, RedirectError, SignInRequired
from ..redirects import OOB, with_params
from . import sessions
from .html import Viewer, error_page


def redirect_error_response(error: RedirectError, viewer: Viewer | None = None) -> Response:
    """RFC 6749 4.1.2.1; out of band there is nowhere to redirect to: the user reads it."""
    if error.redirect_uri == OOB:
        message = f"{error.error}: {error.description}"
        step = "refused" if error.error == "access_denied" else "authorization"
        return error_page(message, title="Authorization failed", viewer=viewer, next_step=step)
    values = {"error": error.error, "error_description": error.description}
    if error.state is not None:
        values["state"] = error.state  # AUTHZ-STATE-ON-ERROR
    return RedirectResponse(with_params(error.redirect_uri, values), status_code=302)


def _viewer(request: Request) -> Viewer | None:
    """Error pages are pages of the site: the header knows who is logged in."""
    return sessions.viewer_of(inbound.server(request), request)


async def render_sign_in_required(request: Request, error: Exception) -> Response:
    assert isinstance(error, SignInRequired)  # registered for SignInRequired only
    return RedirectResponse("/login?returnto=" + quote(error.return_to), status_code=303)


async def render_page_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, PageError)  # registered for PageError only
    # On the way to or from an application, the way out is back through the application.
    step = "authorization" if request.url.path.startswith("/oauth2/") else "page"
    return error_page(
        str(error), status=error.status, title=error.title, viewer=_viewer(request), next_step=step
    )


async def render_redirect_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, RedirectError)  # registered for RedirectError only
    if error.redirect_uri == OOB:
        return redirect_error_response(error, _viewer(request))
    return redirect_error_response(error)
