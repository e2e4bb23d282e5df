"""Checks before the browser opens, so that a login fails in a second, not after the user
has done the whole browser flow (what ``gh auth login`` and ``mb-oauth login`` do).

* the token store answers (a missing or locked keyring is found now, not after consent);
* the service is reachable over verified TLS;
* the authorization endpoint accepts this request: an unknown client id, a redirect URI it
  does not know or an unknown scope shows an error page or redirects with an error, which a
  plain GET sees without any user;
* the client secret, where cheap: a revocation of a made-up token with the credentials
  (RFC 7009: 200 for any token) answers ``invalid_client`` when the secret is wrong.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urljoin, urlsplit

from client_kit._authorization import check_redirect
from client_kit._endpoints import classify_error
from client_kit._errors import ClientRejected, ConfigurationError, TemporaryFailure
from client_kit._safe_text import clean

if TYPE_CHECKING:
    import httpx

    from client_kit._authorization import AuthorizationRequest
    from client_kit._connections import Connections
    from client_kit._endpoints import Endpoints
    from client_kit._storage import StoreKey, TokenStore

#: the made-up token of the secret check: valid syntax, never issued
PROBE_TOKEN = "mb-oauth-preflight-not-a-token"  # noqa: S105


def before_browser(
    request: AuthorizationRequest,
    endpoints: Endpoints,
    connections: Connections,
    store: TokenStore,
    key: StoreKey,
) -> None:
    """Every check, in order; raises the first problem found (what ``check=True`` runs)."""
    check_store(store, key)
    check_authorization(request, endpoints, connections)
    check_secret(endpoints, connections)


def check_store(store: TokenStore, key: StoreKey) -> None:
    """Read this login's entry: raises the store's StorageError if it cannot."""
    store.load(key)


def check_secret(endpoints: Endpoints, connections: Connections) -> None:
    """Only with a secret (or a broker): wrong credentials are a configuration error now.

    With a broker this is also where a wrong ``broker_url`` shows: its revocation route
    must answer as the service does (200 here), not 404.
    """
    if endpoints.credentials.client_secret is None and not endpoints.broker_url:
        return
    response = connections.send(endpoints.revoke_request(PROBE_TOKEN))
    if response.status_code == 200:
        return
    error = classify_error(response)
    if isinstance(error, ClientRejected | TemporaryFailure):
        raise error
    if endpoints.broker_url:
        raise _not_a_broker(endpoints.broker_url, response)
    # anything else (a provider without revocation, a rate limit...) proves nothing


def _not_a_broker(broker_url: str, response: httpx.Response) -> ConfigurationError:
    return ConfigurationError(
        f"the broker URL {broker_url} does not lead to a broker: {broker_url}/revoke answered "
        f"HTTP {response.status_code}. The broker URL is where the broker serves /token and "
        "/revoke (client_kit.broker.create_app serves them under /oauth: "
        "https://HOST/oauth)",
        setting="broker_url",
    )


def check_authorization(
    request: AuthorizationRequest, endpoints: Endpoints, connections: Connections
) -> None:
    """GET the authorization URL as the browser will; raise what its answer shows."""
    response = connections.send(_get(endpoints.profile.user_agent, request.url))
    if response.status_code >= 500:
        raise TemporaryFailure(
            f"the service's authorization page answered HTTP {response.status_code}; "
            "try again later"
        )
    if response.is_redirect:
        _check_redirect(response, request)
        return
    if response.status_code >= 400:
        raise _page_error(response, endpoints.credentials.client_id)


def _get(user_agent: str, url: str) -> httpx.Request:
    import httpx

    return httpx.Request("GET", url, headers={"User-Agent": user_agent, "Accept": "text/html"})


def _check_redirect(response: httpx.Response, request: AuthorizationRequest) -> None:
    """A redirect back to the application with ``error`` ends the login now."""
    target = urljoin(str(response.url), response.headers.get("location", ""))
    if not target.startswith(request.redirect_uri.split("?")[0]):
        return  # on to the login page
    params = dict(parse_qsl(urlsplit(target).query, keep_blank_values=True))
    if "error" in params:
        check_redirect(params, request.state)  # raises the error the redirect carries


def _page_error(response: httpx.Response, client_id: str) -> ConfigurationError:
    text = page_text(response.text)
    if "client" in text.lower() and ("registered" in text.lower() or "unknown" in text.lower()):
        return ClientRejected(
            f"the service does not know the client id {client_id!r} ({text})",
            setting="client_id",
        )
    return ConfigurationError(
        f"the service refused the authorization request (HTTP {response.status_code}: {text})",
        setting="redirect_uri",
    )


def page_text(page: str, limit: int = 240) -> str:
    """The message of an error page, in one line: its <main> (or <body>) without tags."""
    found = re.search(r"<main[^>]*>(.*?)</main>", page, re.S | re.I) or re.search(
        r"<body[^>]*>(.*?)</body>", page, re.S | re.I
    )
    body = found.group(1) if found else page
    body = re.sub(r"<(script|style|h1|nav|header)[^>]*>.*?</\1>", " ", body, flags=re.S | re.I)
    return clean(html.unescape(re.sub(r"<[^>]+>", " ", body)), limit) or "no message"
