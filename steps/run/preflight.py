"""Checked once before any scenario: can the suite reach the target, trust its TLS, use each
client's credentials and log the user in?

A mistake in the profile would otherwise become dozens of false verdicts, a section 9
conclusion drawn from requests that never got through, and a wrong password tried at every
scenario (locking the account of a live service). Each check stops only on unambiguous
evidence, with one line that says what to fix.
"""

from __future__ import annotations

import base64
import secrets
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote_plus

import httpx

from steps.http.layer import HttpLayer
from steps.http.readers import json_body
from steps.outcomes import NotChecked
from steps.profiles.profile import RegisteredApp, TargetProfile
from steps.run.suite import http_layer
from steps.safety.run_files import RunFileError
from steps.scenario.service import Service

#: The scope of the authorization request a login check opens (spec name; the profile maps it).
LOGIN_SCOPE = "profile"


class PreflightError(Exception):
    """The run cannot start: the message says what to fix (one line)."""


@dataclass
class Preflight:
    """What the checks found besides errors (said on the terminal, not verdicts)."""

    notes: list[str] = field(default_factory=list)


def check_ca_file(profile: TargetProfile) -> None:
    """A ca_file that is missing or not a CA certificate."""
    if not profile.ca_file:
        return
    path = Path(profile.ca_file)
    if not path.is_file():
        raise PreflightError(
            f"ca_file {path} does not exist: set ca_file in the profile to the PEM file of the "
            "CA that signed the target's certificate"
        )
    try:
        ssl.create_default_context(cafile=str(path))
    except ssl.SSLError as error:
        raise PreflightError(f"ca_file {path} is not a PEM CA certificate: {error}") from None


def check_reachable(profile: TargetProfile, http: HttpLayer) -> None:
    """The base URL answers over TLS that verifies (any HTTP status will do)."""
    url = profile.base_url + "/"
    try:
        http.request("GET", url, record=False)
    except httpx.ConnectError as error:
        text = str(error)
        if "CERTIFICATE_VERIFY_FAILED" in text or isinstance(error.__context__, ssl.SSLError):
            trust = f"ca_file {profile.ca_file}" if profile.ca_file else "the system's CAs"
            raise PreflightError(
                f"the TLS certificate of {profile.base_url} does not verify with {trust} "
                f"({text}): set ca_file in the profile to the CA that signed it"
            ) from None
        raise PreflightError(
            f"cannot reach {profile.base_url} ({text}): check base_url (or --target)"
        ) from None
    except httpx.TimeoutException:
        raise PreflightError(
            f"{profile.base_url} did not answer within {http.timeout:.0f} s: check base_url"
        ) from None
    except httpx.HTTPError as error:
        raise PreflightError(f"cannot reach {profile.base_url}: {error}") from None


def credentials_verdict(response: httpx.Response) -> bool | None:
    """True: credentials accepted, False: refused, None: this answer cannot tell."""
    if response.status_code in (429, 503):  # throttled or unavailable: says nothing
        return None
    body = json_body(response) or {}
    error = body.get("error")
    if error == "invalid_client" or (response.status_code == 401 and not error):
        return False
    if response.status_code == 200 and not error:
        return True
    if error in ("invalid_grant", "invalid_token", "unsupported_token_type"):
        return True  # the client got past authentication; the made-up token did not
    return None


def check_client(role: str, client: RegisteredApp, service: Service) -> bool | None:
    """Whether the target accepts a client's credentials: a revocation of a made-up token
    (RFC 7009: 200 for an unknown token); if that cannot tell or refuses, a refresh with a
    made-up token (invalid_grant once the client is authenticated), in the form body and then
    with HTTP Basic (a target that refuses body credentials breaks a rule; that is a verdict,
    not a setup error). Raises only when every answer that tells is a refusal."""
    dummy = "preflight-" + secrets.token_hex(8)
    probes: list[Callable[[], httpx.Response]] = [
        lambda: service.revoke(client, dummy),
        lambda: service.refresh(client, dummy),
        lambda: refresh_with_basic(service, client, dummy),
    ]
    refused = False
    for probe in probes:
        accepted = credentials_verdict(probe())
        if accepted:
            return True
        refused = refused or accepted is False
    if refused:
        raise PreflightError(
            f"the target refused the credentials of [clients.{role}] "
            f"(client_id {client.client_id}): check its client_id and client_secret"
        )
    return None


def refresh_with_basic(service: Service, client: RegisteredApp, token: str) -> httpx.Response:
    """A refresh with a made-up token, the client authenticated by HTTP Basic (RFC 6749 2.3.1)."""
    pair = f"{quote_plus(client.client_id)}:{quote_plus(client.client_secret)}"
    basic = base64.b64encode(pair.encode()).decode()
    return service.http.request(
        "POST",
        service.profile.url("token"),
        data={"grant_type": "refresh_token", "refresh_token": token},
        headers={"Authorization": f"Basic {basic}"},
    )


def check_login(profile: TargetProfile, service: Service, driver: object) -> None:
    """The consent driver logs the user in once (a driver without the hook is trusted)."""
    hook = getattr(driver, "check_login", None)
    if hook is None:
        return
    client = profile.clients.get("web") or next(iter(profile.clients.values()), None)
    if client is None:
        return
    url = service.authorize_url(service.authorize_params(client, LOGIN_SCOPE))
    try:
        hook(url)
    except Exception as error:  # whatever the driver raises, the login did not work
        raise PreflightError(
            f"the user {profile.user.username!r} cannot log in through the "
            f"{getattr(driver, 'name', 'consent')} driver ({error}): check [user] in the "
            "profile (username, password) and [consent]"
        ) from None


def build_driver(profile: TargetProfile, http: HttpLayer) -> object:
    """The profile's consent driver, or a clear error when it cannot be loaded or built."""
    from steps.consent import make_driver

    try:
        return make_driver(profile, http)
    except Exception as error:  # an operator's own driver can fail in any way
        raise PreflightError(
            f"the consent driver {profile.consent.driver!r} cannot be loaded: "
            f"{type(error).__name__}: {error}"
        ) from None


def run_preflight(profile: TargetProfile, http: HttpLayer | None = None) -> Preflight:
    """All checks, in the order a mistake would show; PreflightError on the first one."""
    check_ca_file(profile)
    try:
        http = http or http_layer(profile)
    except RunFileError as error:
        raise PreflightError(error.reason) from None
    result = Preflight()
    try:
        _checks(profile, http, result)
    except NotChecked as error:  # the target kept throttling the suite
        raise PreflightError(f"{error.reason}: try again later") from None
    finally:
        http.close()
    if http.throttle.waited:
        result.notes.append(f"the target throttled the suite: waited {http.throttle.waited:.0f} s")
    return result


def _checks(profile: TargetProfile, http: HttpLayer, result: Preflight) -> None:
    """Reachability and TLS, each client's credentials, then the user's login."""
    check_reachable(profile, http)
    service = Service(profile, http)
    for role, client in profile.clients.items():
        if client.client_secret and check_client(role, client, service) is None:
            result.notes.append(f"could not tell whether [clients.{role}] is accepted")
    driver = build_driver(profile, http)
    try:
        check_login(profile, service, driver)
    finally:
        close = getattr(driver, "close", None)
        if close is not None:
            close()
