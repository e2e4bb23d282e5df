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
from steps.scenario.probes import ALL_SCOPES, OOB_URI, STATES, change_uri, loopback_uri
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
    """The real client's authorization request for some scopes; a scope the spec does not
    name (or names in another case) is the request's fault, its twin the "profile" scope."""
    unknown = [word for word in scope.split() if word not in ALL_SCOPES]
    if not unknown:
        return _start(scene, service, scope)
    request = _start(scene, service, "profile")
    request.add_fault(f"the scope {' '.join(unknown)!r}", "invalid_scope")
    request.params["scope"] = scope
    return request


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
@premise(touches=("state",))
def with_state_of(auth_request: AuthRequest, kind: str) -> None:
    """A state of one kind of characters (the dimension `state`)."""
    auth_request.params["state"] = STATES[kind]


@step(parsers.parse('the request uses the response type "{value}"'))
@premise(touches=("error_redirect",))
def with_response_type(auth_request: AuthRequest, value: str) -> None:
    """Change response_type."""
    if value != "code":
        auth_request.add_fault(f"the response type {value!r}", "unsupported_response_type")
    auth_request.params["response_type"] = value


def _missing_or_redirect(name: str) -> tuple[str, ...]:
    """A required parameter left out; without a redirect URI, the redirect URI is what varies."""
    return ("redirect_uri",) if name == "redirect_uri" else ("missing_field",)


@step(parsers.parse("the request leaves out the {name} parameter"))
@premise(touches=_missing_or_redirect)
def without_parameter(auth_request: AuthRequest, name: str) -> None:
    """Drop one parameter."""
    auth_request.add_fault(f"leaving out {name}")
    auth_request.params[name] = None


@step("the request carries an unknown Client ID")
@premise()
def unknown_client_id(auth_request: AuthRequest) -> None:
    """A Client ID nobody registered."""
    auth_request.add_fault("an unknown Client ID")
    auth_request.params["client_id"] = "unknown-" + new_verifier(24)


@step("the request carries no Client ID")
@premise()
def no_client_id(auth_request: AuthRequest) -> None:
    """No client_id at all."""
    auth_request.add_fault("leaving out client_id")
    auth_request.params["client_id"] = None


@step("the request asks to always show the consent page")
@premise()
def force_consent(auth_request: AuthRequest) -> None:
    """approval_prompt=force."""
    auth_request.params["approval_prompt"] = "force"


@step(parsers.parse("the request carries the registered redirect URI changed {change}"))
@premise(touches=("redirect_uri",))
def changed_redirect_uri(auth_request: AuthRequest, change: str) -> None:
    """A redirect URI that differs from the registered one in one way."""
    auth_request.add_fault(f"the redirect URI changed {change}")
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
@premise(touches=("redirect_uri",))
def localhost_redirect_changed(auth_request: AuthRequest, port: str, change: str) -> None:
    """The registered loopback URI on a port of the application's choosing (allowed), changed
    in one more way (not allowed: spec 4.1 lets only the port vary)."""
    uri = loopback_uri(auth_request.client.redirect_uri, int(port))
    auth_request.params["redirect_uri"] = uri
    auth_request.add_fault(f"the localhost redirect URI changed {change}")
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


def _challenge(request: AuthRequest, method: str | None) -> None:
    """A fresh verifier and its challenge; no method parameter when `method` is None (the
    default, plain, applies)."""
    request.verifier = url_safe_verifier()
    request.challenge = challenge_for(request.verifier, method or "plain")
    request.params["code_challenge"] = request.challenge
    request.params["code_challenge_method"] = method


@step("the request carries no code challenge")
@premise(touches=("authorization",))
def without_challenge(auth_request: AuthRequest) -> None:
    """No PKCE at all (the spec makes it optional)."""
    auth_request.verifier = auth_request.challenge = None
    auth_request.params |= {"code_challenge": None, "code_challenge_method": None}


@step(parsers.re(r"the request carries an? (?P<method>S256|plain) code challenge$"))
@premise(touches=("authorization",))
def with_challenge(auth_request: AuthRequest, method: str) -> None:
    """A challenge from a fresh verifier."""
    _challenge(auth_request, method)


@step("the request carries a code challenge without a method")
@premise(touches=("authorization",))
def with_challenge_no_method(auth_request: AuthRequest) -> None:
    """A challenge with the method left to its default (plain)."""
    _challenge(auth_request, None)


@step(parsers.parse('the request carries a code challenge with the method "{method}"'))
@premise(touches=("error_redirect",))
def with_challenge_method(auth_request: AuthRequest, method: str) -> None:
    """A well-formed challenge under an unsupported method."""
    _challenge(auth_request, "S256")
    auth_request.add_fault(f"the challenge method {method!r}", "invalid_request")
    auth_request.params["code_challenge_method"] = method


@step(
    parsers.re(
        r"the request carries an? (?P<method>S256|plain) code challenge that is (?P<shape>.+)"
    )
)
@premise(touches=("error_redirect",))
def with_malformed_challenge(auth_request: AuthRequest, method: str, shape: str) -> None:
    """A challenge of the wrong length or alphabet."""
    _challenge(auth_request, method)
    auth_request.add_fault(f"a challenge {shape}", "invalid_request")
    challenge = malformed_challenge(shape)
    auth_request.verifier, auth_request.challenge = None, challenge
    auth_request.params |= {"code_challenge": challenge, "code_challenge_method": method}
