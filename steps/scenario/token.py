"""What the application keeps of the token endpoint's answers: the grant a code exchange
issued, and the access token a refresh renewed, both read as a client library would
(steps/http/readers.py). (The steps at the token endpoint are in steps/definitions/exchange.py,
steps/definitions/refresh.py and steps/definitions/token_outcomes.py; the application that sends the
requests is steps/scenario/application.py.)"""

from __future__ import annotations

import httpx

from steps.http.readers import granted, issued_tokens
from steps.scenario.clock import Clock
from steps.scenario.observations import Observations
from steps.scenario.scene import Scene, TokenHistory
from steps.scenario.service import HeldGrant

__all__ = ["issued_tokens", "refreshed", "took_tokens"]


def took_tokens(
    scene: Scene,
    history: TokenHistory,
    response: httpx.Response,
    clock: Clock,
    observations: Observations,
    code: str | None,
) -> None:
    """Keep the tokens of a successful exchange as the scenario's grant."""
    answer = granted(response)
    if answer is None:
        return
    observations.token_response(answer.fields)
    tokens = HeldGrant(
        client=scene.app(),
        scope="",
        access_token=str(answer.access_token),
        refresh_token=answer.refresh_token,
        response=answer.fields,
        content_type=response.headers.get("content-type", ""),
        issued_at=clock.now(),
        code=code,
        answer=response,
    )
    scene.tokens = tokens
    history.first_tokens = history.first_tokens or tokens


def refreshed(scene: Scene, response: httpx.Response, clock: Clock) -> None:
    """A successful refresh renews the grant the scenario (and maybe the cache) holds."""
    answer = granted(response)
    if scene.tokens and answer is not None:
        scene.tokens.renewed(answer.fields, clock.now())
