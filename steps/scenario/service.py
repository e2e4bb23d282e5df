"""The service's endpoints as the suite calls them: requests built from the profile, with
fields that a scenario can leave out or override to probe one rule at a time."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlencode

import httpx

from steps.http.layer import HttpLayer
from steps.http.readers import LENIENCIES, note
from steps.profiles.profile import RegisteredApp, TargetProfile

#: Fields of a request as a step overrides them: a value of None removes the field.
Fields = Mapping[str, str | None]


def merge(base: Mapping[str, str], overrides: Fields | None = None) -> dict[str, str]:
    """Base fields with overrides applied; an override of None removes the field."""
    merged: dict[str, str | None] = {**base, **(overrides or {})}
    return {k: v for k, v in merged.items() if v is not None}


class Service:
    """Calls the target's endpoints through the recording HTTP layer."""

    def __init__(self, profile: TargetProfile, http: HttpLayer) -> None:
        self.profile = profile
        self.http = http
        # What the profile configures, the layer cannot learn from the traffic by name: client
        # secrets go out in Basic credentials, the password only in a login form.
        secrets = [c.client_secret for c in profile.clients.values()]
        http.redactor.learn(profile.user.password, *secrets)

    # --- authorization endpoint -------------------------------------------------------------

    def authorize_params(self, client: RegisteredApp, scope: str) -> dict[str, str | None]:
        """The minimal valid authorization request of a client (scopes in the spec's names,
        sent in the deployment's vocabulary)."""
        return {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": client.redirect_uri,
            "scope": self.profile.scope(scope),
        }

    def authorize_url(self, params: Fields, base: str | None = None) -> str:
        """The authorization URL for the given query parameters (None values left out)."""
        query = urlencode({k: v for k, v in params.items() if v is not None})
        return f"{base or self.profile.base_url}{self.profile.endpoints['authorize']}?{query}"

    # --- token endpoint ---------------------------------------------------------------------

    def exchange(
        self, client: RegisteredApp, code: str, redirect_uri: str, overrides: Fields | None = None
    ) -> httpx.Response:
        """POST grant_type=authorization_code."""
        base = {
            "grant_type": "authorization_code",
            "code": code,
            "client_id": client.client_id,
            "client_secret": client.client_secret,
            "redirect_uri": redirect_uri,
        }
        return self.token_request(merge(base, overrides))

    def refresh(
        self, client: RegisteredApp, refresh_token: str, overrides: Fields | None = None
    ) -> httpx.Response:
        """POST grant_type=refresh_token."""
        base = {
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": client.client_id,
            "client_secret": client.client_secret,
        }
        return self.token_request(merge(base, overrides))

    def token_request(
        self, fields: Mapping[str, str], *, in_query: bool = False, method: str = "POST"
    ) -> httpx.Response:
        """POST to the token endpoint, the fields in the body (or, to probe, in the query of a
        POST or a GET)."""
        if method == "GET":
            return self.http.request("GET", self.profile.url("token"), params=dict(fields))
        return self._post("token", fields, in_query=in_query)

    # --- revocation endpoint ----------------------------------------------------------------

    def revoke(
        self,
        client: RegisteredApp,
        token: str,
        *,
        method: str = "POST",
        in_query: bool = False,
        overrides: Fields | None = None,
    ) -> httpx.Response:
        """Revoke a token (RFC 7009), optionally the wrong way round to probe the endpoint."""
        base = {
            "token": token,
            "client_id": client.client_id,
            "client_secret": client.client_secret,
        }
        fields = merge(base, overrides)
        if method == "GET":
            return self.http.request("GET", self.profile.url("revoke"), params=fields)
        return self._post("revoke", fields, in_query=in_query)

    # --- user information -------------------------------------------------------------------

    def userinfo(
        self, token: str | None, how: str = "header", base: str | None = None
    ) -> httpx.Response:
        """Read the user information with the token in the header, a form body or the query."""
        url = (base or self.profile.base_url) + self.profile.endpoints["userinfo"]
        if token is None or how == "none":
            return self.http.request("GET", url)
        if how == "header":
            return self.http.request("GET", url, headers={"Authorization": f"Bearer {token}"})
        if how == "body":
            return self.http.request("POST", url, data={"access_token": token})
        if how == "query":
            return self.http.request("GET", url, params={"access_token": token})
        header = {"Authorization": f"Bearer {token}"}
        if how == "header+query":
            return self.http.request("GET", url, headers=header, params={"access_token": token})
        if how == "header+body":
            return self.http.request("POST", url, headers=header, data={"access_token": token})
        if how == "body+query":
            query = {"access_token": token}
            return self.http.request("POST", url, params=query, data={"access_token": token})
        if how.startswith("scheme:"):  # another scheme word, or none at all
            value = f"{how[7:]} {token}".strip()
            return self.http.request("GET", url, headers={"Authorization": value})
        raise ValueError(f"unknown token transport {how!r}")

    def token_accepted(self, token: str, how: str = "header") -> bool:
        """Whether the service takes the access token passed `how`: the user information
        endpoint accepts it (2xx), whatever the shape of its answer (a premise's reading, noted
        when the answer lacks the user's name: the USERINFO-* rule of that way judges that)."""
        response = self.userinfo(token, how)
        if response.is_success and self.profile.user.username not in response.text:
            what = "user information without the user name"
            note(response, what, LENIENCIES[what])
        return response.is_success

    def token_refused(self, token: str, how: str = "header") -> bool:
        """Whether the service no longer honours the token passed `how`: the user's data is not
        in the answer. Spec 7.2 does not show the answer to a refused token, so a 200 without
        the user's data is a refusal too."""
        response = self.userinfo(token, how)
        return not (response.is_success and self.profile.user.username in response.text)

    def _post(self, endpoint: str, fields: Mapping[str, str], *, in_query: bool) -> httpx.Response:
        url = self.profile.url(endpoint)
        if in_query:
            return self.http.request("POST", url, params=dict(fields), data={})
        return self.http.request("POST", url, data=dict(fields))
