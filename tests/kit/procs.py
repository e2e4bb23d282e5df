"""Code run in child processes by the cross-process refresh test (spawned, so importable)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import httpx
import respx

from client_kit import profiles
from client_kit._connections import Connections
from client_kit._endpoints import ClientCredentials, Endpoints
from client_kit._refresh import RefreshEngine
from client_kit._storage import FileStore, StoreKey


def refresh_in_child(store_dir: str, counter: str, out: str, barrier) -> None:
    """Wait for the others, then ask for valid tokens; every refresh is counted in a file."""
    profile = profiles.custom("https://mb.test", like="metabrainz")
    engine = RefreshEngine(
        Connections(Endpoints(profile, ClientCredentials("cid", "secret"))),
        FileStore(store_dir),
        StoreKey(profile.base_url, "cid"),
    )

    def token_endpoint(request: httpx.Request) -> httpx.Response:
        # O_APPEND writes of one short line are atomic: the file is the server's counter
        with Path(counter).open("a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()} {request.content.decode()}\n")
        time.sleep(0.3)  # widen the window in which an unlocked refresh would overlap
        return httpx.Response(
            200,
            json={
                "access_token": f"access-{os.getpid()}",
                "refresh_token": f"refresh-{os.getpid()}",
                "expires_in": 3600,
                "token_type": "Bearer",
            },
        )

    with respx.mock(assert_all_called=False) as mock:
        mock.post("https://mb.test/oauth2/token").mock(side_effect=token_endpoint)
        barrier.wait()
        tokens = engine.tokens()
    Path(out).write_text(
        json.dumps({"access": tokens.access_token, "refresh": tokens.refresh_token})
    )
