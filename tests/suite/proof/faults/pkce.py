"""Faults of PKCE (spec 4.1, 4.2, 9; RFC 7636; RFC 9700 2.1.1): which challenges are taken and
which verifiers are checked.

Where a fault must accept a verifier the server would refuse, the proxy keeps the challenge to
itself: it passes the authorization request on without it (the server issues a code without
PKCE) and checks the verifier at the exchange as the fault would, from the challenge the
ledger kept."""

from __future__ import annotations

import re

from tests.suite.broken.exchange import ProxyRequest, ProxyResponse
from tests.suite.broken.helpers import error_redirect, s256
from tests.suite.broken.registry import AUTHORIZE
from tests.suite.proof.actions import never_issued, replace_param, swap
from tests.suite.proof.fault import Target, fault
from tests.suite.proof.records import Code

PKCE_PARAMS = ("code_challenge", "code_challenge_method")


def _authorization(req: ProxyRequest, t: Target) -> bool:
    return req.path == AUTHORIZE and t.values["error"] in ("-", "access_denied")


def _code(req: ProxyRequest, t: Target) -> Code | None:
    """The code of a well-formed exchange (else None)."""
    if t.values["endpoint"] != "exchange" or t.values["invalidity"] != "-":
        return None
    return t.ledger.codes.get(req.param("code") or "")


def _strip_challenge(req: ProxyRequest) -> None:
    req.query = [(k, v) for k, v in req.query if k not in PKCE_PARAMS]


def _agrees(code: Code, verifier: str) -> bool:
    challenge = code.authorization.challenge
    return (s256(verifier) if code.authorization.pkce == "S256" else verifier) == challenge


async def _checked_by_proxy(
    req: ProxyRequest, t: Target, accept_missing: bool, accept_mismatch: bool
) -> ProxyResponse:
    """PKCE kept by the proxy for the combination's codes: the challenge withheld from the
    server, the verifier judged here (accepted or refused as the fault says)."""
    if _authorization(req, t) and t.values["pkce"] in ("S256", "plain") and t.matches():
        _strip_challenge(req)
        return await t.send(req)
    code = _code(req, t)
    if code is None or code.authorization.pkce not in ("S256", "plain"):
        return await t.send(req)
    authorization = {"client": code.authorization.client, "pkce": code.authorization.pkce}
    if not t.matches(t.values | authorization):
        return await t.send(req)
    verifier = req.param("code_verifier")
    if verifier is None:
        accepted = accept_missing
    else:
        accepted = _agrees(code, verifier) or accept_mismatch
        if not _agrees(code, verifier) and accept_mismatch:
            t.applied()
    if verifier is None and accept_missing:
        t.applied()
    if accepted:
        replace_param(req, "code_verifier", None)
    else:
        swap(req, "code")
    return await t.send(req)


@fault(
    "PKCE-VERIFIER-MISMATCH",
    "a code_verifier that does not agree with the challenge is accepted (the verifier is "
    "only required to be present)",
)
async def verifier_not_compared(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _checked_by_proxy(req, t, accept_missing=False, accept_mismatch=True)


@fault(
    "PKCE-VERIFIER-MISSING",
    "a code issued for a challenge is exchanged without a verifier (a verifier sent is checked)",
)
async def verifier_optional(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _checked_by_proxy(req, t, accept_missing=True, accept_mismatch=False)


@fault(
    "PKCE-DOWNGRADE",
    "a code_verifier sent for a code issued without a challenge is ignored",
)
async def downgrade_ignored(req: ProxyRequest, t: Target) -> ProxyResponse:
    code = _code(req, t)
    without = code is not None and code.authorization.pkce == "none"
    if t.hits(without and req.param("code_verifier") is not None):
        replace_param(req, "code_verifier", None)
    return await t.send(req)


@fault(
    "PKCE-OPTIONAL",
    "an authorization request without a code challenge is refused (PKCE required)",
)
async def pkce_required(req: ProxyRequest, t: Target) -> ProxyResponse:
    if t.hits(req.is_("GET", AUTHORIZE) and _authorization(req, t)):
        return error_redirect(req, "invalid_request")
    return await t.send(req)


async def _verifier_refused(
    req: ProxyRequest, t: Target, method_given: bool | None
) -> ProxyResponse:
    code = _code(req, t)
    given = code is not None and (
        method_given is None or code.authorization.method_given == method_given
    )
    if t.hits(code is not None and given and req.param("code_verifier") is not None):
        replace_param(req, "code_verifier", never_issued())
    return await t.send(req)


@fault(
    "PKCE-S256",
    "an S256 challenge is met by its verifier, but the exchange refuses it (the challenge "
    "recomputed with base64 padding)",
)
async def s256_broken(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _verifier_refused(req, t, None)


@fault(
    "PKCE-PLAIN",
    "a plain challenge (method named) is met by its verifier, but the exchange refuses it",
)
async def plain_broken(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _verifier_refused(req, t, True)


@fault(
    "PKCE-DEFAULT-PLAIN",
    "a challenge without a method is taken as S256, so its plain verifier is refused",
)
async def default_s256(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _verifier_refused(req, t, False)


@fault(
    "PKCE-BAD-METHOD",
    "an unknown code_challenge_method is taken as plain",
)
async def method_as_plain(req: ProxyRequest, t: Target) -> ProxyResponse:
    params = dict(req.query)
    method = params.get("code_challenge_method")
    bad = method is not None and method not in ("S256", "plain")
    if t.hits(req.path == AUTHORIZE and bad and "code_challenge" in params):
        req.query = [(k, "plain" if k == "code_challenge_method" else v) for k, v in req.query]
    return await t.send(req)


@fault(
    "PKCE-CHALLENGE-FORMAT",
    "a code_challenge is taken whatever its length and characters",
)
async def challenge_unchecked(req: ProxyRequest, t: Target) -> ProxyResponse:
    params = dict(req.query)
    method = params.get("code_challenge_method")
    challenge = params.get("code_challenge")
    if req.path == AUTHORIZE and challenge and method in (None, "S256", "plain"):
        well_formed = _well_formed(challenge, method or "plain")
        if t.hits(well_formed != challenge and t.values["error"] == "invalid_request"):
            req.query = [(k, well_formed if k == "code_challenge" else v) for k, v in req.query]
    return await t.send(req)


def _well_formed(challenge: str, method: str) -> str:
    """The nearest challenge the server takes (what a lax one would have stored)."""
    kept = re.sub(r"[^A-Za-z0-9\-_]", "", challenge) if method == "S256" else challenge
    kept = re.sub(r"[^A-Za-z0-9\-._~]", "", kept)
    if method == "S256":
        return (kept + "A" * 43)[:43]
    return (kept + "A" * 43)[: max(43, min(len(kept), 128))]
