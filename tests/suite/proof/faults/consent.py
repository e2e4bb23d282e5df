"""Faults of consent (spec 4.1 approval_prompt, 5): when the consent page is shown and whether a
code is issued without it."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from steps.http.html import find_form
from tests.suite.broken.exchange import FORM, ProxyRequest, ProxyResponse
from tests.suite.broken.registry import AUTHORIZE
from tests.suite.proof.actions import location_params
from tests.suite.proof.fault import Target, fault

CONSENT_FORM = "form#consent-form"


def _consent_page(resp: ProxyResponse) -> bool:
    html = resp.body.decode(errors="replace")
    return resp.status == 200 and find_form(html, CONSENT_FORM) is not None


async def _approved_for_the_user(
    req: ProxyRequest, page: ProxyResponse, t: Target
) -> ProxyResponse:
    """The consent page's form submitted with "approve" by the service itself: the redirect
    it leads to, with the cookies the page set."""
    form = find_form(page.body.decode(errors="replace"), CONSENT_FORM)
    assert form is not None
    set_cookies = [(k, v) for k, v in page.headers if k.lower() == "set-cookie"]
    cookies = [req.header("cookie") or "", *(v.split(";", 1)[0] for _, v in set_cookies)]
    action = urlsplit(form.attrs.get("action") or "")
    query = action.query or req.query_string()
    post = ProxyRequest(
        "POST", action.path or AUTHORIZE, [], [("cookie", "; ".join(c for c in cookies if c))]
    )
    post.raw_query = query
    post.query = parse_qsl(query, keep_blank_values=True)
    post.set_form([*form.fields, ("decision", "approve")])
    post.set_header("content-type", FORM)
    answer = await t.send(post)
    answer.headers += set_cookies
    return answer


def _forced(req: ProxyRequest) -> bool:
    return dict(req.query).get("approval_prompt") == "force"


@fault(
    "AUTH-USER-CONSENT",
    "the service approves on the user's behalf: a code is issued without the consent page",
    # the consent page a new set of scopes, or approval_prompt=force, calls for is skipped too
    implies=("AUTHZ-APPROVAL-AUTO-NEW-SCOPES", "AUTHZ-APPROVAL-FORCE"),
)
async def consent_skipped(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    if t.hits(req.is_("GET", AUTHORIZE) and _consent_page(resp)):
        return await _approved_for_the_user(req, resp, t)
    return resp


@fault(
    "AUTHZ-APPROVAL-AUTO-NEW-SCOPES",
    "consent is remembered per application, not per set of scopes: once the user approved "
    "some scopes, any others are granted without the consent page",
)
async def consent_per_application(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    client_id = dict(req.query).get("client_id")
    approved = any(c.authorization.client_id == client_id for c in t.ledger.codes.values())
    auto = req.is_("GET", AUTHORIZE) and not _forced(req)
    if t.hits(auto and approved and _consent_page(resp)):
        return await _approved_for_the_user(req, resp, t)
    return resp


@fault(
    "AUTHZ-APPROVAL-AUTO",
    "approval_prompt=auto shows the consent page again though the user already consented",
)
async def consent_asked_again(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    auto = req.is_("GET", AUTHORIZE) and not _forced(req)
    if t.hits(auto and any(k == "code" for k, _ in location_params(resp))):
        forced = ProxyRequest(req.method, req.path, [*req.query, ("approval_prompt", "force")], [])
        forced.headers = list(req.headers)
        return await t.send(forced)
    return resp


@fault(
    "AUTHZ-APPROVAL-FORCE",
    "approval_prompt=force is ignored: consent already given is not asked again",
)
async def force_ignored(req: ProxyRequest, t: Target) -> ProxyResponse:
    if t.hits(req.is_("GET", AUTHORIZE) and _forced(req)):
        req.query = [(k, v) for k, v in req.query if k != "approval_prompt"]
    return await t.send(req)
