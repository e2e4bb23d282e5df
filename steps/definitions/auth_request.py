"""Steps that put an authorization request together (features: authorization, consent, PKCE,
desktop, scopes). The request is the fixture `auth_request`, made by the step that starts it
(`target_fixture`) and changed in place by the steps after it."""

from __future__ import annotations

import random

from pytest_bdd import parsers, step

from steps.scenario.authorization import client_request
from steps.scenario.fresh_scopes import never_approved, to_approve
from steps.scenario.kinds import premise
from steps.scenario.pkce import challenge_for, malformed_challenge, new_verifier, url_safe_verifier
from steps.scenario.probes import OOB_URI, STATES, change_uri, loopback_uri
from steps.scenario.scene import AuthRequest, Scene
from steps.scenario.service import Service


def _start(scene: Scene, service: Service, scope: str) -> AuthRequest:
    """The request a real client sends (S256 and a state; offline access for an offline web
    application); steps after it change it."""
    request = client_request(service, scene.app(), scope)
    if scene.offline:
        request.params["access_type"] = "offline"
    return request


@step(
    parsers.re(r'the application asks for the "(?P<scope>[^"]*)" scopes?'),
    target_fixture="auth_request",
)
@premise()
def asks_for(scene: Scene, service: Service, scope: str) -> AuthRequest:
    """The minimal authorization request for some scopes."""
    return _start(scene, service, scope)


@step(
    "the application asks for scopes the user has not approved before",
    target_fixture="auth_request",
)
@premise()
def asks_for_new_scopes(scene: Scene, service: Service) -> AuthRequest:
    """A set the suite never approves (steps/scenario/fresh_scopes.py): a scenario with this
    step must not approve it, or later runs on the same deployment would find it approved."""
    return _start(scene, service, never_approved())


@step(
    "the application asks for offline access to scopes the user has not approved before",
    target_fixture="auth_request",
)
@premise()
def asks_offline_new_scopes(scene: Scene, service: Service) -> AuthRequest:
    """access_type=offline with the default approval prompt (auto), for a new scope set."""
    request = _start(scene, service, to_approve())
    request.params |= {"access_type": "offline"}
    return request


@step(parsers.re(r"the request carries a state of (?P<kind>" + "|".join(STATES) + ")"))
@premise()
def with_state_of(auth_request: AuthRequest, kind: str) -> None:
    """A state of one kind of characters (the dimension `state`)."""
    auth_request.params["state"] = STATES[kind]


@step(parsers.parse('the request carries the state "{state}"'))
@premise()
def with_state(auth_request: AuthRequest, state: str) -> None:
    """Add a state value."""
    auth_request.params["state"] = state


@step(parsers.parse('the request uses the response type "{value}"'))
@premise()
def with_response_type(auth_request: AuthRequest, value: str) -> None:
    """Change response_type."""
    auth_request.params["response_type"] = value


@step(parsers.parse("the request leaves out the {name} parameter"))
@premise()
def without_parameter(auth_request: AuthRequest, name: str) -> None:
    """Drop one parameter."""
    auth_request.params[name] = None


@step("the request carries an unknown Client ID")
@premise()
def unknown_client_id(auth_request: AuthRequest) -> None:
    """A Client ID nobody registered."""
    auth_request.params["client_id"] = "unknown-" + new_verifier(24)


@step("the request carries no Client ID")
@premise()
def no_client_id(auth_request: AuthRequest) -> None:
    """No client_id at all."""
    auth_request.params["client_id"] = None


@step("the request asks to always show the consent page")
@premise()
def force_consent(auth_request: AuthRequest) -> None:
    """approval_prompt=force."""
    auth_request.params["approval_prompt"] = "force"


@step(parsers.parse("the request carries the registered redirect URI changed {change}"))
@premise()
def changed_redirect_uri(auth_request: AuthRequest, change: str) -> None:
    """A redirect URI that differs from the registered one in one way."""
    auth_request.params["redirect_uri"] = change_uri(auth_request.client.redirect_uri, change)


@step("the request carries the out-of-band redirect URI")
@premise()
def oob_redirect(auth_request: AuthRequest) -> None:
    """urn:ietf:wg:oauth:2.0:oob."""
    auth_request.params["redirect_uri"] = OOB_URI


@step(
    parsers.re(
        r"the request carries a localhost redirect URI on port (?P<port>\d+) changed (?P<change>.+)"
    )
)
@premise()
def localhost_redirect_changed(auth_request: AuthRequest, port: str, change: str) -> None:
    """The registered loopback URI on a port of the application's choosing (allowed), changed
    in one more way (not allowed: spec 4.1 lets only the port vary)."""
    uri = loopback_uri(auth_request.client.redirect_uri, int(port))
    auth_request.params["redirect_uri"] = change_uri(uri, change)


@step(
    parsers.re(
        r"the request carries a localhost redirect URI on "
        r"(?:port (?P<port>\d+)|a port of its choosing)"
        r'(?: with the path "(?P<path>[^"]*)")?'
    )
)
@premise()
def localhost_redirect(auth_request: AuthRequest, port: str | None, path: str | None) -> None:
    """The registered loopback URI with a port (and perhaps another path)."""
    chosen = int(port) if port else random.randint(20000, 60000)
    uri = loopback_uri(auth_request.client.redirect_uri, chosen, path)
    auth_request.params["redirect_uri"] = uri


def _challenge(request: AuthRequest, method: str | None, *, challenge_as: str = "") -> None:
    """A fresh verifier and its challenge (made with `challenge_as`, else `method`); no
    method parameter when `method` is None (the default, plain, applies)."""
    request.verifier = url_safe_verifier()
    request.challenge = challenge_for(request.verifier, challenge_as or method or "plain")
    request.params["code_challenge"] = request.challenge
    request.params["code_challenge_method"] = method


@step("the request carries no code challenge")
@premise()
def without_challenge(auth_request: AuthRequest) -> None:
    """No PKCE at all (the spec makes it optional)."""
    auth_request.verifier = auth_request.challenge = None
    auth_request.params |= {"code_challenge": None, "code_challenge_method": None}


@step(parsers.re(r"the request carries an? (?P<method>S256|plain) code challenge$"))
@premise()
def with_challenge(auth_request: AuthRequest, method: str) -> None:
    """A challenge from a fresh verifier."""
    _challenge(auth_request, method)


@step("the request carries a code challenge without a method")
@premise()
def with_challenge_no_method(auth_request: AuthRequest) -> None:
    """A challenge with the method left to its default (plain)."""
    _challenge(auth_request, None)


@step(parsers.parse('the request carries a code challenge with the method "{method}"'))
@premise()
def with_challenge_method(auth_request: AuthRequest, method: str) -> None:
    """A well-formed challenge under an unsupported method."""
    _challenge(auth_request, method, challenge_as="S256")


@step(
    parsers.re(
        r"the request carries an? (?P<method>S256|plain) code challenge that is (?P<shape>.+)"
    )
)
@premise()
def with_malformed_challenge(auth_request: AuthRequest, method: str, shape: str) -> None:
    """A challenge of the wrong length or alphabet."""
    challenge = malformed_challenge(shape)
    auth_request.verifier, auth_request.challenge = None, challenge
    auth_request.params |= {"code_challenge": challenge, "code_challenge_method": method}
