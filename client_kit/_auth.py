"""``httpx.Auth`` that adds the user's bearer token and refreshes it when needed.

``httpx.Client(auth=session.auth())`` and ``httpx.AsyncClient(auth=session.auth())`` both
work: the token is refreshed shortly before it expires and once more after the API answers
401 (or what the profile counts as "token not accepted"). A bearer token is never sent over
plain HTTP, not even to a loopback address.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Generator

import httpx

from client_kit._errors import InsecureTransportError
from client_kit._refresh import RefreshEngine


class BearerAuth(httpx.Auth):
    """Bearer token authentication backed by a :class:`RefreshEngine`."""

    #: read the body first so that it can be sent again after a refresh
    requires_request_body = True
    requires_response_body = False

    def __init__(self, engine: RefreshEngine) -> None:
        self.engine = engine

    def sync_auth_flow(
        self, request: httpx.Request
    ) -> Generator[httpx.Request, httpx.Response, None]:
        _require_https(request)
        request.read()  # overriding sync_auth_flow skips httpx's own requires_request_body
        tokens = self.engine.tokens()
        _authorize(request, tokens.access_token)
        response = yield request
        if response.status_code in self.engine.endpoints.profile.unauthorized_statuses:
            tokens = self.engine.refresh(rejected=tokens.access_token)
            _authorize(request, tokens.access_token)
            yield request

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        """The sync flow's rules; the store, the lock and a refresh wait in a worker thread,
        never on the loop's."""
        import asyncio

        _require_https(request)
        await request.aread()
        tokens = await asyncio.to_thread(self.engine.tokens)
        _authorize(request, tokens.access_token)
        response = yield request
        if response.status_code in self.engine.endpoints.profile.unauthorized_statuses:
            tokens = await asyncio.to_thread(self.engine.refresh, tokens.access_token)
            _authorize(request, tokens.access_token)
            yield request


def _require_https(request: httpx.Request) -> None:
    if request.url.scheme != "https":
        raise InsecureTransportError(
            f"refusing to send a bearer token over plain HTTP to {request.url.host}; "
            "use an https:// URL"
        )


def _authorize(request: httpx.Request, access_token: str) -> None:
    request.headers["Authorization"] = f"Bearer {access_token}"
