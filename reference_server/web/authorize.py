"""GET /oauth2/authorize and the consent form's POST (spec 4.1, 7.1).

Order of checks: the client and its redirect URI first (a problem there is shown on our own
page, never redirected, so we never send a user to an unverified URI); then everything else,
reported to the application by redirect with `error` and `state`. Both are raised (a
`PageError`, a `RedirectError`) and rendered by `errorpages`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .. import grants, inbound, pkce, scopes
from ..accounts import Account, Application, application_by_client_id, user_by_id
from ..errors import PageError, ParameterError, RedirectError
from ..redirects import OOB, matches, with_params
from ..state import ServerState
from . import consent, sessions
from .html import esc, page

_CHOICES = {"access_type": ("online", "offline"), "approval_prompt": ("auto", "force")}


@dataclass(frozen=True)
class IdentifiedRequest:
    """An authorization request whose client and redirect URI are known to be good
    (`identify`); the rest of it is still to be checked (`validate`)."""

    application: Application
    redirect_uri: str
    params: dict[str, str]
    duplicates: frozenset[str]

    @property
    def state(self) -> str | None:
        return self.params.get("state")

    @property
    def fingerprint(self) -> str:
        """Binds a consent form token to exactly this request."""
        text = urlencode(sorted(self.params.items()))
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def web(self) -> bool:
        return not self.application.is_public

    def refuse(self, error: str, description: str) -> RedirectError:
        """An error for the application, at its redirect URI, with the state."""
        # AUTHZ-STATE-ON-ERROR: the state as it came (errorpages.redirect_error_response)
        return RedirectError(error, description, self.redirect_uri, self.state)


_TITLE = "Authorization error"


def _read_query(request: Request) -> tuple[dict[str, str], frozenset[str]]:
    try:
        pairs = inbound.query_pairs(request)
    except ParameterError as error:
        if error.status == 413:
            raise PageError("The authorization request is too long.", 414, _TITLE) from None
        raise PageError(
            "The authorization request is not properly URL-encoded.", 400, _TITLE
        ) from None
    params: dict[str, str] = {}
    duplicates: set[str] = set()
    for name, value in pairs:
        if name in params:
            duplicates.add(name)
        params.setdefault(name, value)
    return params, frozenset(duplicates)


def identify(state: ServerState, request: Request) -> IdentifiedRequest:
    """Check client_id and redirect_uri; anything wrong with them is a PageError."""
    params, duplicates = _read_query(request)
    if {"client_id", "redirect_uri"} & duplicates:
        raise PageError("client_id and redirect_uri may be given only once.", title=_TITLE)
    client_id = params.get("client_id")
    if not client_id:  # AUTHZ-ERR-BAD-CLIENT: missing
        raise PageError(
            "The request does not say which application is asking (no client_id).", title=_TITLE
        )
    app = application_by_client_id(state.store, client_id)
    if app is None:  # AUTHZ-ERR-BAD-CLIENT
        raise PageError("No application is registered with this client_id.", title=_TITLE)
    redirect_uri = params.get("redirect_uri")
    if not redirect_uri:  # AUTHZ-ERR-BAD-REDIRECT: missing
        raise PageError("The request has no redirect_uri.", title=_TITLE)
    if not matches(redirect_uri, app.redirect_uri, app.is_public):  # AUTHZ-ERR-BAD-REDIRECT
        raise PageError(
            "The redirect_uri does not match the application's registered URL.", title=_TITLE
        )
    return IdentifiedRequest(app, redirect_uri, params, duplicates)


def validate(request: IdentifiedRequest) -> frozenset[str]:
    """Check the other parameters; returns the requested scopes or raises RedirectError."""
    params = request.params
    if request.duplicates:
        names = ", ".join(sorted(request.duplicates))
        raise request.refuse("invalid_request", f"parameters repeated: {names}")
    response_type = params.get("response_type")
    if not response_type:  # AUTHZ-REQUIRED-PARAMS (scope: `scopes.parse_scope`)
        raise request.refuse("invalid_request", "response_type is required")
    if response_type != "code":  # AUTHZ-ERR-UNSUPPORTED-RESPONSE-TYPE
        raise request.refuse("unsupported_response_type", "only response_type=code is supported")
    try:
        requested = scopes.parse_scope(params.get("scope"))
    except scopes.ScopeError as error:  # AUTHZ-ERR-INVALID-SCOPE
        raise request.refuse("invalid_scope", str(error)) from None
    problem = pkce.challenge_problem(
        params.get("code_challenge"), params.get("code_challenge_method")
    )
    if problem:  # AUTHZ-ERR-INVALID-REQUEST
        raise request.refuse("invalid_request", problem)
    for name, allowed in _CHOICES.items():
        if name in params and params[name] not in allowed:
            raise request.refuse("invalid_request", f"{name} must be one of {', '.join(allowed)}")
    return requested


def _redirect(request: IdentifiedRequest, values: dict[str, str]) -> Response:
    if request.state is not None:
        values["state"] = request.state  # AUTHZ-STATE-ECHO
    if request.redirect_uri == OOB:  # CODE-OOB-SHOWN: on a page of ours (`out_of_band`)
        return RedirectResponse("/oauth2/oob?" + urlencode(values), status_code=302)
    return RedirectResponse(with_params(request.redirect_uri, values), status_code=302)


def _issue(
    state: ServerState, request: IdentifiedRequest, user: Account, scope: str, offline: bool
) -> Response:
    code = grants.issue_code(
        state.store,
        state.now(),
        grants.CodeRequest(
            application=request.application,
            user=user,
            scope=scope,
            redirect_uri=request.redirect_uri,
            # VERSION-PKCE: the challenge is kept for the exchange
            challenge=request.params.get("code_challenge"),
            challenge_method=request.params.get("code_challenge_method"),
            offline=offline,
        ),
    )
    # AUTHZ-RESPONSE-TYPE-CODE: an approved request leads to a code, sent in the query of the
    # redirect to its redirect URI (CODE-IN-REDIRECT)
    return _redirect(request, {"code": code})


def _login_redirect(request: Request) -> Response:
    """To the login page, which then returns here. A consent form posted without a session
    (it expired, or the user logged out elsewhere) comes back as the GET that shows it again,
    and the login page says why it is shown (303: the browser must not post again)."""
    target = request.url.path + ("?" + request.url.query if request.url.query else "")
    location = "/login?returnto=" + quote(target, safe="")
    if request.method == "POST":
        return RedirectResponse(location + "&why=session-ended", status_code=303)
    return RedirectResponse(location, status_code=302)


def _wants_offline(request: IdentifiedRequest) -> bool:
    """Whether the code's grant gets a refresh token (spec 2.3), once the user approved."""
    if not request.web:  # TOKEN-REFRESH-INSTALLED: an installed application always does
        return True
    # TOKEN-REFRESH-OFFLINE; TOKEN-NO-REFRESH-ONLINE: online is the default access type
    return request.params.get("access_type") == "offline"


async def authorize(request: Request) -> Response:
    state = inbound.server(request)
    authz = identify(state, request)
    requested = validate(authz)
    session = sessions.load(state, request)
    if session is None or session.user is None:
        return _login_redirect(request)
    scope = scopes.canonical(requested)
    if request.method == "POST":
        return await _decide(state, request, authz, session, scope)
    auto = authz.params.get("approval_prompt", "auto") == "auto"  # AUTHZ-APPROVAL-FORCE
    if (  # AUTHZ-APPROVAL-AUTO: a web application with a standing consent skips the page
        authz.web
        and auto
        and grants.has_consent(state.store, session.user, authz.application, scope, state.now())
    ):
        # Consent given before for exactly this scope set: no page, and no refresh token
        # (TOKEN-REFRESH-OFFLINE: only the first exchange has one, as musicbrainz.org does).
        return _issue(state, authz, session.user, scope, offline=False)
    return _consent_page(state, request, authz, session, requested)  # AUTH-USER-CONSENT


async def _decide(
    state: ServerState,
    request: Request,
    authz: IdentifiedRequest,
    session: sessions.BrowserSession,
    scope: str,
) -> Response:
    try:
        form = await inbound.form_params(request)
    except ParameterError as error:
        raise PageError(str(error), error.status) from None
    token = form.get("csrf_token", "")
    if not sessions.use_form_token(state, session, authz.fingerprint, token):
        raise PageError(
            "This consent form has expired or was already used. Go back to the application "
            "and start again.",
            status=403,
        )
    assert session.user is not None
    decision = form.get("decision")
    if decision == "deny":  # AUTHZ-ERR-ACCESS-DENIED
        raise authz.refuse("access_denied", "the user refused the request")
    if decision != "approve":
        raise PageError("Choose to allow or to deny the application.")
    if authz.web:
        grants.record_consent(state.store, state.now(), session.user, authz.application, scope)
    return _issue(state, authz, session.user, scope, offline=_wants_offline(authz))


def _consent_page(
    state: ServerState,
    request: Request,
    authz: IdentifiedRequest,
    session: sessions.BrowserSession,
    requested: frozenset[str],
) -> Response:
    assert session.user is not None
    question = consent.Question(
        application=authz.application,
        owner=user_by_id(state.store, authz.application.owner_id),
        redirect_uri=authz.redirect_uri,
        requested=requested,
        offline=_wants_offline(authz),
        action=request.url.path + "?" + request.url.query,
        form_token=sessions.new_form_token(state, session, authz.fingerprint),
    )
    return consent.consent_page(question, session)


async def out_of_band(request: Request) -> Response:
    """The page that shows an out-of-band code for the user to copy (spec 2.2).

    Only a code this server issued, unused and unexpired, is shown: the page is on the
    service's own origin, and arbitrary text from the query would let anyone put words in its
    mouth (content spoofing). The state is not shown for the same reason.
    """
    state = inbound.server(request)
    code = request.query_params.get("code")
    if not code or not grants.code_is_pending(state.store, state.now(), code):
        raise PageError(
            "There is no authorization code to show: it is unknown, used or expired. Go back "
            "to the application and start again.",
            status=400,
        )
    # CODE-OOB-SHOWN: the code, shown for the user to copy
    body = f"""
<p>Copy this code and paste it into the application:</p>
<code class="code-box" id="oob-code">{esc(code)}</code>
<p>The code works once, for ten minutes. Once the application has used it, the application
appears on your <a href="/account/authorized">authorized applications</a> page.</p>
"""
    return page("Authorization code", body, viewer=sessions.viewer_of(state, request))
