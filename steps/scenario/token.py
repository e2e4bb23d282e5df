"""The application at the token endpoint: the code exchange and the refresh as it sends them,
and what it keeps of the answers in its scene (the grant, the first tokens, the refresh tokens it
sent), read as a client library would (steps/http/readers.py). The steps that use them are in
steps/definitions/exchange.py, refresh.py and token_outcomes.py."""

from __future__ import annotations

import httpx

from steps.http.evidence import Exchange
from steps.http.readers import TokenAnswer, granted
from steps.outcomes import PremiseFailed, require
from steps.profiles.profile import RegisteredApp
from steps.rules.ids import RULE
from steps.scenario.authorization import code_rule
from steps.scenario.scene import HeldGrant, IssuedCode, Scene
from steps.scenario.target import Target


def refresh_rule(role: str) -> str:
    """The rule that gives this kind of application a refresh token (named by a premise that
    needs one and finds none)."""
    return RULE.TOKEN_REFRESH_INSTALLED if role == "installed" else RULE.TOKEN_REFRESH_OFFLINE


def held_grant(
    client: RegisteredApp,
    scope: str,
    answer: TokenAnswer,
    response: httpx.Response,
    now: float,
    code: str | None,
    exchange: Exchange | None = None,
) -> HeldGrant:
    """The grant a granted code exchange issued, as the application holds it."""
    return HeldGrant(
        client=client,
        scope=scope,
        access_token=str(answer.access_token),
        refresh_token=answer.refresh_token,
        response=answer.fields,
        content_type=response.headers.get("content-type", ""),
        issued_at=now,
        code=code,
        exchange=exchange,
        answer=response,
    )


def code_to_exchange(scene: Scene, code: IssuedCode | None) -> IssuedCode:
    """The code to exchange (a premise: whether the visit brought one is judged by the check
    that says so, and without one this scenario could not be checked)."""
    if code is None:
        request = scene.request
        client = request.client if request is not None else scene.app()
        raise PremiseFailed(
            f"no authorization code to exchange: the browser ended on {scene.outcome}",
            see=code_rule(request, client),
        )
    return code


def exchange(
    scene: Scene, target: Target, code: IssuedCode | None, /, **overrides: str | None
) -> httpx.Response:
    """Exchange the code (fields overridden as given); a granted answer becomes the scene's
    grant (and its first tokens, the first time)."""
    issued = code_to_exchange(scene, code)
    scene.client = issued.client
    fields = {"code_verifier": issued.verifier} | overrides  # as its client sends it
    response = scene.keep(
        target.service.exchange(issued.client, issued.code, issued.redirect_uri, fields)
    )
    answer = granted(response)
    if answer is not None:
        target.observations.token_response(answer.fields)
        tokens = held_grant(scene.app(), "", answer, response, target.clock.now(), issued.code)
        tokens.offline = issued.offline
        scene.tokens = tokens
        scene.history.first_tokens = scene.history.first_tokens or tokens
    return response


def refresh_token(scene: Scene) -> str:
    """The grant's refresh token: a premise (a grant without one is the rule's that gives this
    kind of application one)."""
    tokens = scene.grant()
    see = refresh_rule(tokens.client.role)
    require(tokens.refresh_token, "the grant has no refresh token", see=see)
    assert tokens.refresh_token is not None
    return tokens.refresh_token


def refresh(
    scene: Scene, target: Target, token: str, overrides: dict[str, str | None] | None = None
) -> None:
    """Refresh with a refresh token (fields overridden as given); a granted answer renews the
    scene's grant."""
    history = scene.history
    history.sent_refresh_token = token
    history.first_refresh_token = history.first_refresh_token or token
    response = scene.keep(target.service.refresh(scene.app(), token, overrides))
    answer = granted(response)
    if scene.tokens and answer is not None:
        scene.tokens.renewed(answer.fields, target.clock.now())
