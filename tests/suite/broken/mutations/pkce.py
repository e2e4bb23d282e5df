"""Broken PKCE."""

from __future__ import annotations

import re

from tests.suite.broken.exchange import (
    Context,
    Forward,
    ProxyRequest,
    ProxyResponse,
)
from tests.suite.broken.helpers import (
    drop_query,
    error_redirect,
    grant,
    is_authorize,
    s256,
    set_form_value,
)
from tests.suite.broken.registry import mutation


@mutation(
    "pkce-verifier-not-checked",
    "any code_verifier is accepted for a code issued with a challenge",
    breaks={"PKCE-VERIFIER-MISMATCH"},
    also={"PKCE-S256", "PKCE-PLAIN", "PKCE-VERIFIER-MISSING", "PKCE-DOWNGRADE"},
)
async def pkce_verifier_not_checked(req: ProxyRequest, forward: Forward, ctx: Context):
    """The proxy swaps the challenge for its own, then the verifier for the matching one."""
    verifiers = ctx.state.setdefault("verifier", {})
    made = ctx.state.setdefault("made", {})  # the proxy's challenges (a consent form posts them)
    own = None
    challenge, method = req.query_value("code_challenge"), req.query_value("code_challenge_method")
    if is_authorize(req) and challenge in made:
        own = made[challenge]
    elif is_authorize(req) and challenge and _well_formed(challenge, method):
        own = _proxy_verifier(challenge)
        made[s256(own)] = own
        drop_query(req, "code_challenge", "code_challenge_method")
        req.query += [("code_challenge", s256(own)), ("code_challenge_method", "S256")]
    if grant(req) == "authorization_code" and req.param("code_verifier") is not None:
        code = req.param("code")
        if code in verifiers:
            set_form_value(req, "code_verifier", verifiers[code])
    resp = await forward(req)
    code = resp.location_params().get("code") if is_authorize(req) else None
    if own and code:
        verifiers[code] = own
    return resp


def _well_formed(challenge: str, method: str | None) -> bool:
    if method not in (None, "S256", "plain"):
        return False
    if method == "S256":
        return re.fullmatch(r"[A-Za-z0-9_-]{43}", challenge) is not None
    return re.fullmatch(r"[A-Za-z0-9._~-]{43,128}", challenge) is not None


def _proxy_verifier(challenge: str) -> str:
    """A verifier the proxy derives from the client's challenge (stable across the consent)."""
    return s256("proxy-verifier:" + challenge) + "xyz"


@mutation(
    "pkce-ignored",
    "the PKCE parameters are ignored (the earlier description)",
    breaks={
        "PKCE-VERIFIER-MISMATCH",
        "PKCE-VERIFIER-MISSING",
        "PKCE-DOWNGRADE",
        "PKCE-BAD-METHOD",
        "PKCE-CHALLENGE-FORMAT",
    },
    also={"PKCE-S256", "PKCE-PLAIN", "PKCE-OPTIONAL"},
)
async def pkce_ignored(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    if is_authorize(req):
        drop_query(req, "code_challenge", "code_challenge_method")
    if grant(req):
        set_form_value(req, "code_verifier", None)
    return await forward(req)


def _refuse_challenge(req: ProxyRequest, methods: set[str | None]) -> ProxyResponse | None:
    """An invalid_request redirect when the request's challenge method is one of `methods`."""
    if not (is_authorize(req) and req.query_value("code_challenge")):
        return None
    if req.query_value("code_challenge_method") not in methods:
        return None
    return error_redirect(req, "invalid_request")


@mutation(
    "pkce-plain-refused",
    "plain code challenges (and challenges without a method) are refused",
    breaks={"PKCE-PLAIN", "PKCE-DEFAULT-PLAIN"},
    also={"PKCE-S256"},
)
async def pkce_plain_refused(req: ProxyRequest, forward: Forward, ctx: Context):
    return _refuse_challenge(req, {"plain", None}) or await forward(req)


@mutation(
    "pkce-s256-refused",
    "S256 code challenges are refused",
    breaks={"PKCE-S256"},
    also={"PKCE-PLAIN"},
)
async def pkce_s256_refused(req: ProxyRequest, forward: Forward, ctx: Context):
    return _refuse_challenge(req, {"S256"}) or await forward(req)
