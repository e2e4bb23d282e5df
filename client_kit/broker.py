"""A reference token broker: the application's back end that holds the client secret.

A desktop application must not ship its client secret (the MetaBrainz provider's rule).
In broker mode (``Session(..., broker_url="https://app.example/oauth")``) the kit sends
the code exchange and refresh to ``{broker_url}/token`` and revocation to
``{broker_url}/revoke``, without a secret; this Starlette app adds the application's
client id and secret and forwards them to the service, answering with the service's own
status and JSON (so the kit classifies errors exactly as without a broker).

    from client_kit import profiles
    from client_kit.broker import create_app
    app = create_app(profiles.musicbrainz(), client_id="...", client_secret="...")
    # uvicorn app:app --ssl-certfile ... --ssl-keyfile ...  (HTTPS only: it carries tokens)
    # serves https://app.example/oauth/token and /oauth/revoke: broker_url is .../oauth

The routes live under ``prefix`` (default ``/oauth``, so that the ``broker_url`` of the
examples is the broker's); mounted in an application of your own
(``Mount("/oauth", create_app(..., prefix=""))``) they live where you mount them.
``mb-oauth login`` and ``Session.login`` try ``{broker_url}/revoke`` before the browser
opens, so a wrong ``broker_url`` is found at once, not after the user approved.

Only what the two grants need is forwarded (allow-list); requests for another client id
are refused. Put it behind your own rate limiting; it needs the ``server`` extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from client_kit.profiles import Profile

#: grant type -> the parameters forwarded for it
TOKEN_FIELDS = {
    "authorization_code": ("grant_type", "code", "redirect_uri", "code_verifier"),
    "refresh_token": ("grant_type", "refresh_token", "scope"),
}
REVOKE_FIELDS = ("token", "token_type_hint")
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


#: where :func:`create_app` serves its routes by default: ``broker_url`` is ``https://HOST/oauth``
DEFAULT_PREFIX = "/oauth"


def create_app(
    profile: Profile, client_id: str, client_secret: str, *, prefix: str = DEFAULT_PREFIX
) -> Starlette:
    """The broker for one registered application of one service: ``POST {prefix}/token``
    and ``POST {prefix}/revoke``, so the desktop's ``broker_url`` is ``https://HOST{prefix}``."""
    from starlette.applications import Starlette
    from starlette.routing import Route

    broker = _Broker(profile, client_id, client_secret)
    base = "/" + prefix.strip("/") if prefix.strip("/") else ""
    return Starlette(
        routes=[
            Route(f"{base}/token", broker.token, methods=["POST"]),
            Route(f"{base}/revoke", broker.revoke, methods=["POST"]),
        ]
    )


class _Broker:
    def __init__(self, profile: Profile, client_id: str, client_secret: str) -> None:
        self.profile = profile
        self.client_id = client_id
        self.client_secret = client_secret

    async def token(self, request: Request) -> Response:
        form = await _form(request)
        refused = self._refuse(form)
        if refused is not None:
            return refused
        fields = TOKEN_FIELDS.get(form.get("grant_type", ""))
        if fields is None:
            return _error(400, "unsupported_grant_type", "the broker forwards code and refresh")
        return await self._forward(self.profile.token_url, _pick(form, fields))

    async def revoke(self, request: Request) -> Response:
        form = await _form(request)
        refused = self._refuse(form)
        if refused is not None:
            return refused
        if not form.get("token"):
            return _error(400, "invalid_request", "token is required")
        return await self._forward(self.profile.revoke_url, _pick(form, REVOKE_FIELDS))

    def _refuse(self, form: dict[str, str]) -> Response | None:
        if form.get("client_id", self.client_id) != self.client_id:
            return _error(401, "invalid_client", "this broker serves another application")
        if "client_secret" in form:
            return _error(400, "invalid_request", "the broker adds the secret; do not send it")
        return None

    async def _forward(self, url: str, data: dict[str, str]) -> Response:
        """The service's answer, within the kit's bounds (a deadline, 64 KB)."""
        import httpx
        from starlette.responses import Response

        from client_kit._errors import KitError
        from client_kit._transfer import TOKEN_LIMIT, Bounds, asend, kit_async_client

        data.update(client_id=self.client_id, client_secret=self.client_secret)
        request = httpx.Request("POST", url, data=data, headers={"Accept": "application/json"})
        try:
            async with kit_async_client(self.profile) as client:
                bounds = Bounds(self.profile.deadline, TOKEN_LIMIT)
                answer = await asend(client, request, bounds)
        except KitError:
            return _error(502, "temporarily_unavailable", "the service cannot be reached")
        media = answer.headers.get("content-type", "application/json")
        return Response(answer.content, answer.status_code, headers=NO_STORE, media_type=media)


async def _form(request: Request) -> dict[str, str]:
    """The url-encoded body (stdlib parsing: no multipart dependency). A repeated
    parameter leaves the form empty, which every route refuses."""
    from urllib.parse import parse_qsl

    body = (await request.body()).decode("utf-8", "replace")
    pairs = parse_qsl(body, keep_blank_values=True)
    form = dict(pairs)
    return form if len(form) == len(pairs) else {}


def _pick(form: dict[str, str], fields: tuple[str, ...]) -> dict[str, str]:
    return {name: form[name] for name in fields if form.get(name)}


def _error(status: int, error: str, description: str) -> Response:
    from starlette.responses import JSONResponse

    return JSONResponse(
        {"error": error, "error_description": description}, status, headers=NO_STORE
    )
