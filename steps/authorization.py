"""Steps of the authorization request and the user's decision (features: authorization,
consent, PKCE, desktop, scopes)."""

from __future__ import annotations

import random
import re
from urllib.parse import urlsplit, urlunsplit

import pytest
from pytest_bdd import given, parsers, step, then

from steps.consent import ConsentDriver, RedirectResult, ServicePage
from steps.grants import Authorizer, GrantCache
from steps.http import HttpLayer
from steps.observations import Observations
from steps.outcomes import NotChecked
from steps.pkce import challenge_for, malformed_challenge, new_verifier
from steps.profile import Profile
from steps.scene import AuthRequest, Scene
from steps.service import Service

ALL_SCOPES = ("profile", "email", "tag", "rating", "collection", "submit_isrc", "submit_barcode")
OOB_URI = "urn:ietf:wg:oauth:2.0:oob"
APPS = {
    "web application": "web",
    "web": "web",
    "installed application": "installed",
    "installed": "installed",
    "second web": "other_web",
}


# --- the application ---------------------------------------------------------------------


@given("a web application registered with the service")
def web_application(scene: Scene, profile: Profile) -> None:
    """The confidential web application of the profile."""
    scene.client = profile.client("web")


@given("an installed application registered with the service")
def installed_application(scene: Scene, profile: Profile) -> None:
    """The public installed application of the profile."""
    scene.client = profile.client("installed")


@given("another web application registered with the service")
def other_application(scene: Scene, profile: Profile) -> None:
    """The second confidential application, for cross-client checks."""
    scene.other = profile.client("other_web")


@then("the two applications have different Client IDs")
def different_client_ids(scene: Scene) -> None:
    """Client IDs identify applications."""
    assert scene.other is not None
    assert scene.app().client_id != scene.other.client_id


@then("every registered application has a Client ID of its own")
def unique_client_ids(profile: Profile) -> None:
    """Spec 2.1: unique, whatever the application type."""
    ids = [client.client_id for client in profile.clients.values()]
    assert len(set(ids)) == len(ids), f"{len(ids)} applications share {len(set(ids))} Client IDs"


# --- codes and grants a scenario starts from ---------------------------------------------


@given(
    parsers.re(
        r"an authorization code issued to the (?P<kind>web|installed|second web) application"
        r"(?P<offline> for offline access)?"
    )
)
def issued_code(scene: Scene, authorizer: Authorizer, kind: str, offline: str | None) -> None:
    """A fresh code (the user approves once)."""
    issued = authorizer.code(APPS[kind], "profile", offline=bool(offline))
    scene.client, scene.code, scene.code_redirect_uri = (
        issued.client,
        issued.code,
        issued.redirect_uri,
    )


@given(
    parsers.re(
        r"the user has (?P<fresh>just )?granted the (?P<kind>web application|installed application)"
        r' (?P<offline>offline )?access to "(?P<scope>[^"]*)"'
    )
)
def granted(
    scene: Scene,
    authorizer: Authorizer,
    grants: GrantCache,
    http: HttpLayer,
    fresh: str | None,
    kind: str,
    offline: str | None,
    scope: str,
) -> None:
    """A grant: shared among read-only scenarios, or ("just") one of the scenario's own."""
    role = APPS[kind]
    if fresh:
        scene.tokens = authorizer.grant(role, scope, offline=bool(offline))
    else:
        scene.tokens = grants.get(role, scope, offline=bool(offline))
        if scene.tokens.exchange and scene.tokens.exchange not in http.exchanges:
            http.exchanges.append(scene.tokens.exchange)  # the exchange this scenario relies on
    scene.client = scene.tokens.client


# --- putting the request together --------------------------------------------------------


@step(parsers.re(r'the application asks for the "(?P<scope>[^"]*)" scopes?'))
def asks_for(scene: Scene, service: Service, scope: str) -> None:
    """The minimal authorization request for some scopes."""
    scene.request = AuthRequest(scene.app(), service.authorize_params(scene.app(), scope))


@step("the application asks for scopes the user has not approved before")
def asks_for_new_scopes(scene: Scene, service: Service) -> None:
    """A random scope set; on a long-lived deployment an earlier run may have approved it."""
    scope = " ".join(random.sample(ALL_SCOPES[2:], k=random.randint(3, 5)))
    scene.request = AuthRequest(scene.app(), service.authorize_params(scene.app(), scope))


def _new_scope_set() -> str:
    """A random set with `email` and one to four of the tag-like scopes (perhaps `profile`):
    one of 60, none of which another scenario approves or expects to be new (those draw from
    the tag-like scopes alone, or ask for "profile email")."""
    chosen = random.sample(ALL_SCOPES[2:], k=random.randint(1, 4))
    return " ".join(["email", *chosen, *(["profile"] if random.random() < 0.5 else [])])


@step("the application asks for offline access to scopes the user has not approved before")
def asks_offline_new_scopes(scene: Scene, service: Service) -> None:
    """access_type=offline with the default approval prompt (auto), for a new scope set."""
    params = service.authorize_params(scene.app(), _new_scope_set())
    scene.request = AuthRequest(scene.app(), params | {"access_type": "offline"})


def _request(scene: Scene) -> AuthRequest:
    assert scene.request is not None, "no authorization request was started"
    return scene.request


@step(parsers.parse('the request carries the state "{state}"'))
def with_state(scene: Scene, state: str) -> None:
    """Add a state value."""
    _request(scene).params["state"] = state


@step(parsers.parse('the request uses the response type "{value}"'))
def with_response_type(scene: Scene, value: str) -> None:
    """Change response_type."""
    _request(scene).params["response_type"] = value


@step(parsers.parse("the request leaves out the {name} parameter"))
def without_parameter(scene: Scene, name: str) -> None:
    """Drop one parameter."""
    _request(scene).params[name] = None


@step("the request carries an unknown Client ID")
def unknown_client_id(scene: Scene) -> None:
    """A Client ID nobody registered."""
    _request(scene).params["client_id"] = "unknown-" + new_verifier(24)


@step("the request carries no Client ID")
def no_client_id(scene: Scene) -> None:
    """No client_id at all."""
    _request(scene).params["client_id"] = None


@step("the request asks to always show the consent page")
def force_consent(scene: Scene) -> None:
    """approval_prompt=force."""
    _request(scene).params["approval_prompt"] = "force"


@step(parsers.parse("the request carries the registered redirect URI changed {change}"))
def changed_redirect_uri(scene: Scene, change: str) -> None:
    """A redirect URI that differs from the registered one in one way."""
    request = _request(scene)
    request.params["redirect_uri"] = change_uri(request.client.redirect_uri, change)


@step("the request carries the out-of-band redirect URI")
def oob_redirect(scene: Scene) -> None:
    """urn:ietf:wg:oauth:2.0:oob."""
    _request(scene).params["redirect_uri"] = OOB_URI


LOCALHOST_STEP = (
    r"the request carries a localhost redirect URI on "
    r"(?:port (?P<port>\d+)|a port of its choosing)"
    r'(?: with the path "(?P<path>[^"]*)")?'
)


@step(
    parsers.re(
        r"the request carries a localhost redirect URI on port (?P<port>\d+) changed (?P<change>.+)"
    )
)
def localhost_redirect_changed(scene: Scene, port: str, change: str) -> None:
    """The registered loopback URI on a port of the application's choosing (allowed), changed
    in one more way (not allowed: spec 4.1 lets only the port vary)."""
    request = _request(scene)
    uri = loopback_uri(request.client.redirect_uri, int(port))
    request.params["redirect_uri"] = change_uri(uri, change)


@step(parsers.re(LOCALHOST_STEP))
def localhost_redirect(scene: Scene, port: str | None, path: str | None) -> None:
    """The registered loopback URI with a port (and perhaps another path)."""
    request = _request(scene)
    chosen = int(port) if port else random.randint(20000, 60000)
    request.params["redirect_uri"] = loopback_uri(request.client.redirect_uri, chosen, path)


@step(parsers.re(r"the request carries an? (?P<method>S256|plain) code challenge$"))
def with_challenge(scene: Scene, method: str) -> None:
    """A challenge from a fresh verifier."""
    request = _request(scene)
    request.verifier = new_verifier()
    request.challenge = challenge_for(request.verifier, method)
    request.params |= {"code_challenge": request.challenge, "code_challenge_method": method}


@step("the request carries a code challenge without a method")
def with_challenge_no_method(scene: Scene) -> None:
    """A challenge with the method left to its default (plain)."""
    request = _request(scene)
    request.verifier = new_verifier()
    request.challenge = request.verifier
    request.params["code_challenge"] = request.challenge


@step(parsers.parse('the request carries a code challenge with the method "{method}"'))
def with_challenge_method(scene: Scene, method: str) -> None:
    """A well-formed challenge under an unsupported method."""
    request = _request(scene)
    request.verifier = new_verifier()
    request.challenge = challenge_for(request.verifier, "S256")
    request.params |= {"code_challenge": request.challenge, "code_challenge_method": method}


@step(
    parsers.re(
        r"the request carries an? (?P<method>S256|plain) code challenge that is (?P<shape>.+)"
    )
)
def with_malformed_challenge(scene: Scene, method: str, shape: str) -> None:
    """A challenge of the wrong length or alphabet."""
    challenge = malformed_challenge(shape)
    _request(scene).params |= {"code_challenge": challenge, "code_challenge_method": method}


# --- the user at the authorization page ----------------------------------------------------


def _after_visit(scene: Scene, observations: Observations, http: HttpLayer) -> None:
    request = _request(scene)
    outcome = scene.outcome
    if isinstance(outcome, RedirectResult) and outcome.code:
        observations.token_format("code", outcome.code)
        scene.client = request.client
        scene.code, scene.code_redirect_uri = outcome.code, request.redirect_uri
        scene.verifier, scene.challenge = request.verifier, request.challenge


def _visit(
    scene: Scene, service: Service, observations: Observations, http: HttpLayer, act
) -> None:
    """Send the user to the scene's authorization URL; `act` is what the driver does there."""
    scene.outcome = act(service.authorize_url(_request(scene).params))
    _after_visit(scene, observations, http)


@step("the user approves the request")
def user_approves(
    scene: Scene,
    driver: ConsentDriver,
    service: Service,
    observations: Observations,
    http: HttpLayer,
) -> None:
    """Approve (when the consent page asks)."""
    _visit(scene, service, observations, http, driver.approve)


FIRST_APPROVAL_TRIES = 5


@step("the user approves the request on the consent page")
def user_approves_on_consent_page(
    scene: Scene,
    driver: ConsentDriver,
    service: Service,
    observations: Observations,
    http: HttpLayer,
) -> None:
    """Approve a scope set the user sees for the first time (spec 4.1: offline access is about
    the first code exchange for a user). A set approved before (on a long-lived deployment)
    is given up for another random one; the code issued without the page is left unused."""
    for _ in range(FIRST_APPROVAL_TRIES):
        _visit(scene, service, observations, http, driver.approve)
        outcome = scene.outcome
        if not (isinstance(outcome, RedirectResult) and outcome.consent_shown is False):
            return
        params = _request(scene).params
        params["scope"] = service.profile.scope(_new_scope_set())
    raise NotChecked("every scope set tried had been approved before: no first approval")


@step("the user denies the request")
def user_denies(
    scene: Scene,
    driver: ConsentDriver,
    service: Service,
    observations: Observations,
    http: HttpLayer,
) -> None:
    """Refuse on the consent page."""
    _visit(scene, service, observations, http, driver.deny)


@step("the user opens the authorization page")
def user_opens(
    scene: Scene,
    driver: ConsentDriver,
    service: Service,
    observations: Observations,
    http: HttpLayer,
) -> None:
    """Open the page and decide nothing."""
    _visit(scene, service, observations, http, driver.open)


# --- where the browser ended -----------------------------------------------------------


def _target_of(url: str) -> str:
    return url.split("#", 1)[0].split("?", 1)[0]


@then("the application receives an authorization code")
def receives_code(scene: Scene) -> None:
    """Sent back to the request's redirect URI with a code."""
    redirect = scene.redirect()
    assert redirect.code, f"no code in the redirect: error={redirect.error!r}"
    expected = _request(scene).redirect_uri
    if not redirect.oob and redirect.url and expected:
        assert _target_of(redirect.url) == _target_of(expected), (
            f"the code went to {_target_of(redirect.url)}, not to {expected}"
        )


@then("the user is shown an authorization code to copy")
def shown_code(scene: Scene) -> None:
    """Out of band: the service shows the code instead of redirecting."""
    redirect = scene.redirect()
    assert redirect.oob, (
        f"the browser was redirected to {redirect.url} instead of being shown a code"
    )
    assert redirect.code, "the out-of-band page shows no code"


@then(parsers.parse('the redirect carries the state "{state}"'))
def carries_state(scene: Scene, state: str) -> None:
    """state round-trips unchanged."""
    redirect = scene.redirect()
    assert redirect.state == state, f"state came back as {redirect.state!r}, sent {state!r}"


@then(parsers.parse('the application receives the error "{error}"'))
def receives_error(scene: Scene, error: str) -> None:
    """An error redirect to the application."""
    redirect = scene.redirect()
    assert not redirect.code, "a code was issued"
    assert redirect.error == error, f"error={redirect.error!r}, expected {error!r}"
    expected = _request(scene).redirect_uri
    if redirect.url and expected:
        assert _target_of(redirect.url) == _target_of(expected), (
            f"the error went to {_target_of(redirect.url)}, not to {expected}"
        )


@then(parsers.parse('the request is refused as "{error}"'))
def refused_as(scene: Scene, error: str) -> None:
    """Refused with that error, by an error redirect or on the service's own page: how the
    error reaches the user is the business of the rules about error delivery (7.1), not of
    the rule that uses this step."""
    outcome = scene.outcome
    if isinstance(outcome, RedirectResult):
        assert not outcome.code, "a code was issued"
        assert outcome.error == error, f"error={outcome.error!r}, expected {error!r}"
        return
    assert isinstance(outcome, ServicePage), f"no answer to check: {outcome}"
    assert not outcome.consent, "the service asked for consent: it accepted the request"
    if outcome.html:  # a driver that cannot read pages (manual) shows no text
        assert error in outcome.html, f"the service's page does not name {error!r}"


@then(parsers.parse('the error redirect carries the state "{state}"'))
def error_carries_state(scene: Scene, state: str) -> None:
    """Spec 4.1: a failure redirect carries `error` and the `state` that was sent. Which error
    the service names is another rule's business; without an error redirect at all there is
    no state to check (the rule about that kind of error says so)."""
    outcome = scene.outcome
    if not (isinstance(outcome, RedirectResult) and outcome.error):
        raise NotChecked(f"the service sent no error redirect to check the state of: {outcome}")
    assert outcome.state == state, (
        f"state came back as {outcome.state!r} with error={outcome.error!r}, sent {state!r}"
    )


@then("the service shows an error page without sending the user back")
def error_page(scene: Scene) -> None:
    """No redirect at all: the service cannot trust the redirect URI."""
    outcome = scene.outcome
    assert not isinstance(outcome, RedirectResult), f"the browser was sent to {outcome.url}"
    assert isinstance(outcome, ServicePage)
    assert not outcome.consent, "the service asked for consent instead of refusing the request"


@then("no authorization code is issued")
def no_code(scene: Scene) -> None:
    """Whatever happened, no code came out."""
    outcome = scene.outcome
    assert not (isinstance(outcome, RedirectResult) and outcome.code), "a code was issued"


@then("the consent page is shown")
def consent_shown(scene: Scene) -> None:
    """The user is asked."""
    outcome = scene.outcome
    assert isinstance(outcome, ServicePage) and outcome.consent, (
        f"no consent page; the browser ended on {outcome}"
    )


@then("the consent page is not shown")
def consent_not_shown(scene: Scene) -> None:
    """The user is not asked again."""
    outcome = scene.outcome
    assert isinstance(outcome, RedirectResult), f"the browser stayed on the service: {outcome}"
    assert outcome.consent_shown is not True


# --- framing ---------------------------------------------------------------------------


def forbids_framing(headers: dict[str, str]) -> bool:
    """X-Frame-Options DENY/SAMEORIGIN, or CSP frame-ancestors 'none'/'self'."""
    lowered = {k.lower(): v for k, v in headers.items()}
    xfo = lowered.get("x-frame-options", "").strip().upper()
    csp = lowered.get("content-security-policy", "")
    return xfo in ("DENY", "SAMEORIGIN") or bool(
        re.search(r"frame-ancestors\s+('none'|'self')", csp)
    )


@then("the consent page forbids framing")
def consent_page_unframeable(scene: Scene, driver: ConsentDriver) -> None:
    """Clickjacking protection on the page where the user decides."""
    if not driver.observes_pages:
        pytest.skip(f"the {driver.name} driver cannot read page headers")
    outcome = scene.outcome
    assert isinstance(outcome, ServicePage)
    assert forbids_framing(dict(outcome.headers)), f"framing allowed: {dict(outcome.headers)}"


@then("the page a logged-out user sees forbids framing")
def landing_page_unframeable(
    scene: Scene, service: Service, http: HttpLayer, profile: Profile
) -> None:
    """The first page of the flow (usually the login page) without a session."""
    url = service.authorize_url(_request(scene).params)
    for _ in range(6):
        response = http.request("GET", url)
        location = response.headers.get("location")
        if not response.is_redirect or not location:
            break
        url = str(response.url.join(location))
        if urlsplit(url).netloc != urlsplit(profile.base_url).netloc:
            pytest.fail(f"a logged-out user was sent off the service to {url}")
    assert forbids_framing(dict(response.headers)), f"framing allowed on {url}"


# --- redirect URI variants --------------------------------------------------------------


def loopback_uri(registered: str, port: int, path: str | None = None) -> str:
    """The registered loopback URI on another port (and perhaps another path)."""
    parts = urlsplit(registered)
    host = parts.hostname or "localhost"
    return urlunsplit((parts.scheme, f"{host}:{port}", path or parts.path, parts.query, ""))


def change_uri(registered: str, change: str) -> str:
    """The registered redirect URI changed in one described way (feature Examples)."""
    parts = urlsplit(registered)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    path = parts.path or "/"
    changes = {
        "to another host": lambda: parts._replace(netloc=f"attacker.example{port}"),
        "to another path": lambda: parts._replace(path="/elsewhere"),
        "by a path segment added": lambda: parts._replace(path=path.rstrip("/") + "/more"),
        "to another scheme": lambda: parts._replace(
            scheme="http" if parts.scheme == "https" else "https"
        ),
        "to another port": lambda: parts._replace(netloc=f"{host}:{(parts.port or 443) + 1}"),
        "by an extra query parameter": lambda: parts._replace(
            query=(parts.query + "&" if parts.query else "") + "extra=1"
        ),
        "by a user name before the host": lambda: parts._replace(netloc=f"user@{parts.netloc}"),
        "into the user name of another host": lambda: parts._replace(
            netloc=f"{parts.netloc}@attacker.example"
        ),
        "by a fragment": lambda: parts._replace(fragment="fragment"),
        "to upper case in its path": lambda: parts._replace(path=path.upper()),
        "to upper case in its host": lambda: parts._replace(netloc=parts.netloc.upper()),
        "by a percent-encoded character": lambda: parts._replace(path=_encode_first_letter(path)),
        "by a trailing slash": lambda: parts._replace(path=path + "/"),
        "by a dot segment in the path": lambda: parts._replace(
            path=path.rstrip("/") + "/../elsewhere"
        ),
        "to a subdomain of its host": lambda: parts._replace(netloc=f"evil.{parts.netloc}"),
    }
    fixed = {
        "to the out-of-band URI": OOB_URI,
        "to a localhost URI": "http://localhost:8080/callback",
    }
    if change in fixed:
        return fixed[change]
    if change not in changes:
        raise ValueError(f"unknown redirect URI change {change!r}")
    return urlunsplit(changes[change]())


def _encode_first_letter(path: str) -> str:
    """`/callback` -> `/%63allback`: the same resource to a lax comparison, not to an exact one."""
    for index, char in enumerate(path):
        if char.isalpha():
            return f"{path[:index]}%{ord(char):02X}{path[index + 1 :]}"
    return path + "%2E"
