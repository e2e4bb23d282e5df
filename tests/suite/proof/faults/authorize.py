"""Faults of the authorization endpoint (spec 2.1, 2.2, 2.4, 4.1, 7.1; RFC 6749 3.3, 4.1.2.1,
10.13; RFC 9700 4.1.3): where the code or the error goes, what comes back with it, which
redirect URIs and scopes are taken."""

from __future__ import annotations

from urllib.parse import quote, urlencode, urlsplit

from tests.suite.broken.exchange import ProxyRequest, ProxyResponse, redirect
from tests.suite.broken.registry import AUTHORIZE
from tests.suite.proof.actions import (
    is_error_redirect,
    location_params,
    page,
    set_location,
)
from tests.suite.proof.classify import SPEC_SCOPES
from tests.suite.proof.fault import Target, fault
from tests.suite.proof.presented import OOB_PAGE
from tests.suite.proof.resemblance import is_loopback


def _code_redirect(req: ProxyRequest, resp: ProxyResponse) -> bool:
    return req.path == AUTHORIZE and any(k == "code" for k, _ in location_params(resp))


@fault(
    "CODE-IN-REDIRECT",
    "the code comes in the fragment of the redirect, not in its query",
)
async def code_in_fragment(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    location = resp.header("location") or ""
    if t.hits(_code_redirect(req, resp) and "/oauth2/oob" not in location):
        set_location(resp, [], fragment=urlencode(location_params(resp)))
    return resp


@fault("CODE-OOB-SHOWN", "the out-of-band page does not show the code")
async def oob_code_hidden(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    code = t.presented
    if code is not None and t.hits(req.path == OOB_PAGE and t.values["invalidity"] == "-"):
        resp.body = resp.body.replace(code.encode(), b"(return to your application)")
    return resp


@fault(
    "AUTHZ-RESPONSE-TYPE-CODE",
    "an approved response_type=code request is sent back with error=unsupported_response_type",
)
async def code_flow_unsupported(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    if t.hits(_code_redirect(req, resp)):
        state = [(k, v) for k, v in location_params(resp) if k == "state"]
        set_location(resp, [("error", "unsupported_response_type"), *state])
    return resp


@fault(
    "AUTHZ-REQUIRED-PARAMS",
    "an authorization request without response_type or scope is taken as response_type=code "
    "for the profile scope",
)
async def required_params_defaulted(req: ProxyRequest, t: Target) -> ProxyResponse:
    missing = t.values["missing"]
    if t.hits(missing in ("response_type", "scope")):
        req.query.append((missing, "code" if missing == "response_type" else "profile"))
    return await t.send(req)


def altered_state(state: str, kind: str) -> str:
    """The state as a defect of one kind of characters returns it: plain letters one short
    (an off-by-one copy), reserved characters encoded twice, non-ASCII ones lost."""
    if kind == "reserved":
        return quote(state, safe="")
    if kind == "unicode":
        return state.encode("ascii", "replace").decode()
    return state[:-1]


def _with_state_altered(resp: ProxyResponse, kind: str) -> bool:
    params = location_params(resp)
    state = next((v for k, v in params if k == "state"), None)
    if state is None or altered_state(state, kind) == state:
        return False
    changed = [(k, altered_state(v, kind) if k == "state" else v) for k, v in params]
    set_location(resp, changed)
    return True


@fault("AUTHZ-STATE-ECHO", "the success redirect returns the state altered")
async def state_altered(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    kind = t.combination.get("state", "plain")
    if _code_redirect(req, resp) and t.matches() and _with_state_altered(resp, kind):
        t.applied()
    return resp


@fault("AUTHZ-STATE-ON-ERROR", "the error redirect returns the state altered")
async def error_state_altered(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    error_redirect = req.path == AUTHORIZE and is_error_redirect(resp)
    kind = t.combination.get("state", "plain")
    if error_redirect and t.matches() and _with_state_altered(resp, kind):
        t.applied()
    return resp


async def _error_on_page(req: ProxyRequest, t: Target, error: str) -> ProxyResponse:
    resp = await t.send(req)
    errors = [v for k, v in location_params(resp) if k == "error"]
    if t.hits(req.path == AUTHORIZE and errors == [error]):
        return page(400, f"The request could not be completed ({error}).")
    return resp


@fault(
    "AUTHZ-ERR-UNSUPPORTED-RESPONSE-TYPE",
    "an unsupported response_type is shown on an error page, not sent back",
)
async def response_type_on_page(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _error_on_page(req, t, "unsupported_response_type")


@fault("AUTHZ-ERR-INVALID-SCOPE", "an invalid scope is shown on an error page, not sent back")
async def scope_on_page(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _error_on_page(req, t, "invalid_scope")


@fault("AUTHZ-ERR-ACCESS-DENIED", "the user's refusal is shown on a page, not sent back")
async def denial_on_page(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _error_on_page(req, t, "access_denied")


@fault(
    "AUTHZ-ERR-INVALID-REQUEST",
    "a malformed request of a known application is shown on an error page, not sent back",
)
async def malformed_on_page(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _error_on_page(req, t, "invalid_request")


@fault(
    "AUTHZ-ERR-BAD-CLIENT",
    "an unknown or missing Client ID is sent back to the redirect URI with error=invalid_request",
)
async def bad_client_redirected(req: ProxyRequest, t: Target) -> ProxyResponse:
    params = dict(req.query)
    uri = params.get("redirect_uri")
    if req.path == AUTHORIZE and uri and t.ledger.role(params.get("client_id")) is None:
        t.applied()
        state = [("state", params["state"])] if "state" in params else []
        query = urlencode([("error", "invalid_request"), *state])
        return redirect(f"{uri}{'&' if '?' in uri else '?'}{query}")
    return await t.send(req)


def _registered_for(t: Target, client_id: str | None, presented: str) -> str | None:
    """The URI the service should have insisted on: the registered one (an installed
    application's on the port it chose)."""
    registered = t.ledger.registered_uri(client_id)
    if registered is None:
        return None
    given = urlsplit(presented)
    if t.values["client"] == "installed" and given.port is not None:
        return urlsplit(registered)._replace(netloc=f"localhost:{given.port}").geturl()
    return registered


async def _redirect_accepted(req: ProxyRequest, t: Target, on_port: bool = False) -> ProxyResponse:
    """A changed redirect URI on the combination passed on as the registered one, its
    redirect sent to the one the request named (a comparison that lets the difference
    through); `on_port`: only an installed application's localhost URI on a port it chose."""
    uri = dict(req.query).get("redirect_uri") or ""
    loopback = is_loopback(urlsplit(uri)) and urlsplit(uri).port is not None
    changed = req.path == AUTHORIZE and t.values["redirect_change"] != "-"
    if not (changed and (loopback or not on_port) and t.hits()):
        return await t.send(req)
    params = dict(req.query)
    presented = params.get("redirect_uri") or ""
    right = _registered_for(t, params.get("client_id"), presented)
    if right is None:
        return await t.send(req)
    if "redirect_uri" not in params:  # left out: the registered one taken for it
        req.query.append(("redirect_uri", right))
        return await t.send(req)
    req.query = [(k, right if k == "redirect_uri" else v) for k, v in req.query]
    resp = await t.send(req)
    location = resp.header("location") or ""
    if location.startswith(right):
        resp.set_header("location", presented + location[len(right) :])
    return resp


@fault(
    "AUTHZ-ERR-BAD-REDIRECT",
    "a redirect URI that is not exactly the registered one is taken (and sent the code)",
)
async def redirect_not_exact(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _redirect_accepted(req, t)


@fault(
    "AUTHZ-REDIRECT-URI-BYPASS",
    "redirect URIs are compared after normalising them (host case, percent-encoding)",
)
async def redirect_normalised(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _redirect_accepted(req, t)


@fault(
    "DESKTOP-LOOPBACK-PATH",
    "an installed application's localhost redirect URI on a port of its choosing may also "
    "differ in its path, query or fragment",
)
async def loopback_lax(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _redirect_accepted(req, t, on_port=True)


@fault(
    "DESKTOP-LOCALHOST-ANY-PORT",
    "an installed application's localhost redirect URI must use the registered port",
)
async def loopback_port_fixed(req: ProxyRequest, t: Target) -> ProxyResponse:
    uri = dict(req.query).get("redirect_uri") or ""
    on_port = is_loopback(urlsplit(uri)) and urlsplit(uri).port is not None
    allowed = t.values["redirect_change"] == "-"
    if t.hits(req.path == AUTHORIZE and on_port and allowed and t.values["error"] == "-"):
        return page(400, "The redirect URI does not match the registered one.")
    return await t.send(req)


@fault(
    "SCOPE-CASE-SENSITIVE",
    "scope identifiers are compared without regard to case",
)
async def scope_case_folded(req: ProxyRequest, t: Target) -> ProxyResponse:
    scope = dict(req.query).get("scope") or ""
    folded = " ".join(name.lower() for name in scope.split(" "))
    if t.hits(req.path == AUTHORIZE and folded != scope and _known(folded)):
        req.query = [(k, folded if k == "scope" else v) for k, v in req.query]
    return await t.send(req)


def _known(scope: str) -> bool:
    return all(name in SPEC_SCOPES for name in scope.split(" "))


@fault(
    "SCOPE-IDENTIFIERS",
    "the submit_barcode scope is unknown to the service (refused as invalid_scope)",
)
async def barcode_unknown(req: ProxyRequest, t: Target) -> ProxyResponse:
    params = dict(req.query)
    scopes = (params.get("scope") or "").split(" ")
    if req.is_("GET", AUTHORIZE) and "submit_barcode" in scopes and t.values["error"] == "-":
        t.applied()
        uri = params.get("redirect_uri") or ""
        state = [("state", params["state"])] if "state" in params else []
        query = urlencode([("error", "invalid_scope"), *state])
        return redirect(f"{uri}{'&' if '?' in uri else '?'}{query}")
    return await t.send(req)


@fault(
    "AUTHZ-FRAMING",
    "the authorization pages may be framed (no X-Frame-Options, no frame-ancestors)",
)
async def framable(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    if "text/html" in (resp.header("content-type") or ""):
        t.applied()
        resp.set_header("x-frame-options", None)
        policy = resp.header("content-security-policy")
        if policy is not None:
            kept = [d for d in policy.split(";") if "frame-ancestors" not in d]
            resp.set_header("content-security-policy", ";".join(kept) or None)
    return resp
