"""Faults of the token endpoint's answers (spec 2.3, 4.2, 4.3; RFC 6749 5.1, 5.2): their format,
the tokens they carry, their cache headers and error codes."""

from __future__ import annotations

from tests.suite.broken.exchange import ProxyRequest, ProxyResponse, json_response
from tests.suite.proof.actions import (
    PRESENTED,
    form_encoded,
    granted,
    never_issued,
    replace_param,
    swap,
)
from tests.suite.proof.classify import answer_of
from tests.suite.proof.fault import Target, fault


async def _rewritten(req: ProxyRequest, t: Target, change: str) -> ProxyResponse:
    """The answer, with a granted one on the combination changed by `change`."""
    resp = await t.send(req)
    data = granted(req, resp)
    if data is None or not t.matches():
        return resp
    t.applied()
    if change == "form":
        form_encoded(resp, data)
        return resp
    if change == "201":
        resp.status = 201
    elif change == "7200":
        data["expires_in"] = 7200
    elif change in ("token_type", "refresh_token"):
        data.pop(change, None)
    elif change == "add_refresh":
        data["refresh_token"] = never_issued()
    resp.set_json(data)
    return resp


@fault(
    "TOKEN-RESPONSE-ACCESS-TOKEN",
    "the token answer is form-encoded (access_token=...&token_type=Bearer&...), not JSON",
)
async def form_encoded_answer(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _rewritten(req, t, "form")


@fault("TOKEN-RESPONSE-STATUS-200", "a granted token request is answered 201 Created")
async def created(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _rewritten(req, t, "201")


@fault("TOKEN-EXPIRES-IN-3600", "expires_in says 7200 seconds")
async def lasts_7200(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _rewritten(req, t, "7200")


@fault("TOKEN-TYPE-BEARER", "the token answer names no token_type")
async def no_token_type(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _rewritten(req, t, "token_type")


@fault(
    "TOKEN-REFRESH-INSTALLED", "the installed application's code exchange carries no refresh token"
)
async def installed_without_refresh(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _rewritten(req, t, "refresh_token")


@fault(
    "TOKEN-REFRESH-OFFLINE",
    "offline access gives a refresh token only when the consent page was forced "
    "(approval_prompt=force), not with the default prompt",
)
async def offline_only_when_forced(req: ProxyRequest, t: Target) -> ProxyResponse:
    code = t.ledger.codes.get(req.param("code") or "")
    if code is not None and code.authorization.approval_prompt == "force":
        return await t.send(req)
    return await _rewritten(req, t, "refresh_token")


@fault(
    "TOKEN-NO-REFRESH-ONLINE", "an online web application's code exchange carries a refresh token"
)
async def online_with_refresh(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _rewritten(req, t, "add_refresh")


@fault("REFRESH-SAME-TOKEN", "the refresh answer leaves the refresh token out")
async def refresh_without_refresh_token(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _rewritten(req, t, "refresh_token")


@fault("TOKEN-NO-STORE", "token answers carry neither Cache-Control: no-store nor Pragma: no-cache")
async def cacheable(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    if t.values["endpoint"] in ("exchange", "refresh") and t.matches(
        t.values | {"answer": answer_of(req, resp)}
    ):
        t.applied()
        resp.set_header("cache-control", None)
        resp.set_header("pragma", None)
    return resp


@fault(
    "TOKEN-TYPE-PARAM",
    "the token endpoint refuses token_type=bearer and ignores any other token_type",
)
async def token_type_inverted(req: ProxyRequest, t: Target) -> ProxyResponse:
    kind = t.values["endpoint"]
    if t.hits(kind in ("exchange", "refresh") and t.values["token_type"] != "-"):
        if t.values["token_type"] == "bearer":
            swap(req, PRESENTED[kind])
        else:
            replace_param(req, "token_type", None)
    return await t.send(req)


#: A plausible wrong error for each missing field of a token request.
_WRONG_ERROR = {
    "grant_type": "unsupported_grant_type",
    "code": "invalid_grant",
    "refresh_token": "invalid_grant",
    "client_id": "invalid_client",
    "redirect_uri": "invalid_grant",
}


async def _error_replaced(
    req: ProxyRequest, t: Target, error: str, status: int = 400
) -> ProxyResponse:
    resp = await t.send(req)
    if t.hits(resp.status in (400, 401)):
        return json_response(status, {"error": error}, _no_store())
    return resp


def _no_store() -> list[tuple[str, str]]:
    return [("cache-control", "no-store"), ("pragma", "no-cache")]


@fault(
    "TOKEN-ERR-INVALID-REQUEST",
    "a token request missing a parameter is answered with the error of the value it lacks "
    "(unsupported_grant_type, invalid_grant, invalid_client), not invalid_request",
)
async def missing_misnamed(req: ProxyRequest, t: Target) -> ProxyResponse:
    missing = t.values["missing"]
    if t.values["endpoint"] not in ("exchange", "refresh") or missing not in _WRONG_ERROR:
        return await t.send(req)
    return await _error_replaced(req, t, _WRONG_ERROR[missing])


@fault(
    "TOKEN-ERR-INVALID-CLIENT",
    "wrong client credentials at the token endpoint are answered 400 unauthorized_client",
)
async def credentials_misnamed(req: ProxyRequest, t: Target) -> ProxyResponse:
    if t.values["near_miss"] == "-" or t.values["endpoint"] not in ("exchange", "refresh"):
        return await t.send(req)
    return await _error_replaced(req, t, "unauthorized_client")


@fault(
    "TOKEN-ERR-INVALID-GRANT",
    "an invalid code or refresh token is answered 400 invalid_request",
)
async def grant_misnamed(req: ProxyRequest, t: Target) -> ProxyResponse:
    if t.values["invalidity"] == "-" or t.values["endpoint"] not in ("exchange", "refresh"):
        return await t.send(req)
    return await _error_replaced(req, t, "invalid_request")


@fault(
    "TOKEN-ERR-UNSUPPORTED-GRANT",
    "an unsupported grant_type is answered 400 invalid_request",
)
async def grant_type_misnamed(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    if (resp.json() or {}).get("error") == "unsupported_grant_type" and t.values["missing"] == "-":
        t.applied()
        return json_response(400, {"error": "invalid_request"}, _no_store())
    return resp
