"""What the application keeps of the token endpoint's answers: the grant a code exchange
issued, and the access token a refresh renewed. (The steps at the token endpoint are in
steps/exchange.py, steps/refresh.py and steps/token_outcomes.py; the application that sends
the requests is steps/application.py.)"""

from __future__ import annotations

import httpx

from steps.clock import Clock
from steps.observations import Observations
from steps.scene import Scene, TokenHistory
from steps.service import TokenSet, json_body


def took_tokens(
    scene: Scene,
    history: TokenHistory,
    response: httpx.Response,
    clock: Clock,
    observations: Observations,
    code: str | None,
) -> None:
    """Keep the tokens of a successful exchange as the scenario's grant."""
    body = json_body(response)
    if response.status_code != 200 or not body or not isinstance(body.get("access_token"), str):
        return
    observations.token_response(body)
    tokens = TokenSet(
        client=scene.app(),
        scope="",
        access_token=body["access_token"],
        refresh_token=body.get("refresh_token"),
        response=body,
        content_type=response.headers.get("content-type", ""),
        issued_at=clock.now(),
        code=code,
    )
    scene.tokens = tokens
    history.first_tokens = history.first_tokens or tokens


def refreshed(scene: Scene, response: httpx.Response, clock: Clock) -> None:
    """A successful refresh renews the grant the scenario (and maybe the cache) holds."""
    body = json_body(response)
    if scene.tokens and response.status_code == 200 and body and "access_token" in body:
        scene.tokens.renewed(body, clock.now())


def issued_tokens(response: httpx.Response) -> list[str]:
    """The tokens a token-endpoint answer hands out (none for a refusal)."""
    body = json_body(response) or {}
    return [k for k in ("access_token", "refresh_token") if body.get(k)]
