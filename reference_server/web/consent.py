"""The consent page: who asks, for what, where the answer goes, and the two buttons.

Its layout is part of its security. The application's name sits in a box of its own,
isolated (`<bdi>`), and its owner's account name on a line of its own below it: no character
of a name can reorder or rewrite who registered it. The buttons come before any other link
of the page's main part, so that the skip link leads a keyboard straight to them.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from starlette.responses import Response

from .. import scopes
from ..accounts import Account, Application
from ..redirects import OOB, is_loopback
from . import sessions
from .html import esc, hidden, name_html, page, url_html


@dataclass(frozen=True)
class Question:
    """What the page asks the person: the checked request, ready to show."""

    application: Application
    owner: Account | None
    redirect_uri: str
    requested: frozenset[str]
    offline: bool
    action: str  # where the form posts: the authorization request itself
    form_token: str


def _destination(redirect_uri: str) -> str:
    """Where the user's answer goes: shown before they give it."""
    if redirect_uri == OOB:
        return (
            '<p id="destination">If you allow it, this site shows you a code to copy into '
            "the application.</p>"
        )
    where = "to the application on this computer, at" if is_loopback(redirect_uri) else "to"
    return (
        f'<p id="destination">Whatever you answer, you will then be sent {where} '
        f"{url_html(redirect_uri)}.</p>"
    )


def _requester(app: Application, owner: Account | None) -> str:
    """The application's name and its owner, each on a line of its own."""
    by = name_html(owner.name) if owner else "an account that no longer exists"
    return f"""<div class="requester">
<p class="requester-name" id="application-name">{name_html(app.name)}</p>
<p class="requester-owner" id="application-owner">Registered by the account
<strong class="owner-name">{by}</strong></p>
</div>"""


def _owner_profile(owner: Account | None) -> str:
    """A link to the owner's public profile, after the buttons."""
    if owner is None:
        return ""
    href = "/user/" + quote(owner.name, safe="")
    return (
        f'<p id="owner-profile">Who registered it: see the <a href="{esc(href)}">public '
        f"profile of {name_html(owner.name)}</a>.</p>"
    )


def consent_page(question: Question, session: sessions.BrowserSession) -> Response:
    assert session.user is not None
    items = "".join(
        f"<li><strong>{esc(s.name)}</strong>: {esc(s.description)}</li>"
        for s in scopes.describe(question.requested)
    )
    offline = (
        "<p>It will keep this access when you are not using it (offline access).</p>"
        if question.offline
        else ""
    )
    body = f"""
<p>An application asks for access to your account
<strong>{name_html(session.user.name)}</strong>:</p>
{_requester(question.application, question.owner)}
<p>It asks to:</p>
<ul class="scopes" id="requested-scopes">{items}</ul>
{offline}
{_destination(question.redirect_uri)}
<form id="consent-form" method="post" action="{esc(question.action)}">
{hidden("csrf_token", question.form_token)}
<button type="submit" class="primary" name="decision" value="approve">Allow access</button>
<button type="submit" name="decision" value="deny">No thanks</button>
</form>
<p>You can withdraw this access at any time on the
<a href="/account/authorized">authorized applications</a> page.</p>
{_owner_profile(question.owner)}"""
    return page("Authorize application", body, viewer=sessions.viewer(session))
