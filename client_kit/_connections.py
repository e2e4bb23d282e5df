"""The HTTP clients of one session: one for the service, one for its broker, each request
sent within the bounds of its endpoint.

:mod:`client_kit._endpoints` decides who answers a request (the service or the broker, each
with its own connection settings) and how long it may take and how large its answer may be;
:mod:`client_kit._transfer` sends it within those bounds. A login's steps and the session
send through this, and so does the refresh engine: all reuse the same clients and close them
once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from client_kit import _transfer
from client_kit._endpoints import Endpoints, JsonObject

if TYPE_CHECKING:
    import httpx

    from client_kit.profiles import Profile


class Connections:
    """Sends a session's requests; ``close`` ends its clients."""

    def __init__(self, endpoints: Endpoints) -> None:
        self.endpoints = endpoints
        self._clients: dict[int, httpx.Client] = {}

    def client(self, profile: Profile) -> httpx.Client:
        """The client for ``profile``'s connection settings, made on first use."""
        client = self._clients.get(id(profile))
        if client is None:
            client = self._clients[id(profile)] = _transfer.kit_client(profile)
        return client

    def send(self, request: httpx.Request, *, auth: httpx.Auth | None = None) -> httpx.Response:
        """Send within the kit's bounds (an overall deadline, a size limit for the answer);
        a network failure becomes a :class:`KitError` naming who could not be reached."""
        profile = self.endpoints.connection(request.url)
        bounds = self.endpoints.bounds(request)
        return _transfer.send(self.client(profile), request, bounds, auth=auth)

    def userinfo(self, auth: httpx.Auth) -> JsonObject:
        """The user-information document, sent with ``auth`` (the session's ``BearerAuth``
        refreshes a refused token once)."""
        response = self.send(self.endpoints.userinfo_request(), auth=auth)
        return self.endpoints.userinfo_response(response)

    def close(self) -> None:
        for client in self._clients.values():
            client.close()
        self._clients.clear()
