"""The user's visit to the authorization page, and what the application keeps of it: the
code a redirect brought, with the PKCE pair of the request it answers. (The steps that build
the request are in steps/auth_request.py; those of the user's decision and where the browser
ended, in steps/decision.py.)"""

from __future__ import annotations

from steps.consent.base import Outcome, RedirectResult
from steps.observations import Observations
from steps.scene import AuthRequest, IssuedCode


def code_of(
    request: AuthRequest, outcome: Outcome, observations: Observations
) -> IssuedCode | None:
    """The code the visit ended with (its format observed), or None."""
    if isinstance(outcome, RedirectResult) and outcome.code:
        observations.token_format("code", outcome.code)
        redirect_uri = request.redirect_uri
        if not redirect_uri:  # a request without a redirect URI: nothing to exchange the code for
            return None
        return IssuedCode(
            request.client, outcome.code, redirect_uri, request.verifier, request.challenge
        )
    return None
