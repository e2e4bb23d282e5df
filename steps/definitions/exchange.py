"""Steps of the code exchange at the token endpoint (features: code exchange, PKCE, desktop).
The code comes from the fixture `code` (a Given's, or the one the user's visit brought)."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
from pytest_bdd import parsers, when

from steps.http.readers import issued_tokens, require_granted
from steps.rules.ids import RULE
from steps.scenario.authorization import exchange_rule
from steps.scenario.grants import Authorizer
from steps.scenario.kinds import premise
from steps.scenario.negatives import Negative, twin
from steps.scenario.pkce import new_verifier
from steps.scenario.probes import (
    INVALID,
    NEVER_ISSUED,
    WRONG_SECRETS,
    change_uri,
    loopback_uri,
    near_miss,
    wrong_secret,
)
from steps.scenario.scene import IssuedCode, Scene
from steps.scenario.target import Target
from steps.scenario.token import code_to_exchange, exchange


def _refused_unless(scene: Scene, authorizer: Authorizer, issued: IssuedCode, fault: str) -> None:
    """The exchange just sent is a negative: the code's usual exchange (negatives.py) is its
    twin."""
    see = exchange_rule(scene.request, issued.client)
    scene.negative = Negative(fault, twin(lambda: authorizer.exchanges(issued), see))


#: Loopback ports for "another redirect URI it may use": the first one not issued for.
OTHER_PORTS = (49153, 49154)
#: The features' words for a wrong client secret and for a PKCE value sent back.
PKCE_VALUES = r"(?P<which>the matching code verifier|the challenge as its code verifier)"


@when(parsers.re(r"the application exchanges the code(?P<again> again)?$"))
@premise(touches=("code",))
def exchanges_the_code(
    scene: Scene,
    target: Target,
    authorizer: Authorizer,
    code: IssuedCode | None,
    again: str | None,
) -> None:
    """The plain exchange; a second one replays the code (RULE.TOKEN_CODE_SINGLE_USE refuses it:
    its positive twin is the first exchange, which the scenario required granted). After time
    passed, a code's age is the fault its twin, a fresh code's exchange, leaves out."""
    exchange(scene, target, code)
    if again:
        scene.refusal_rule = RULE.TOKEN_CODE_SINGLE_USE
    elif scene.clock_moved:
        issued = code_to_exchange(scene, code)
        _refused_unless(scene, authorizer, issued, "the time that passed since the code was issued")


@when("the application exchanges the code for tokens")
@premise(touches=("code",))
def exchange_for_tokens(scene: Scene, target: Target, code: IssuedCode | None) -> None:
    """An exchange that must give tokens for the scenario to go on (read leniently)."""
    issued = code_to_exchange(scene, code)
    response = exchange(scene, target, issued)
    see = exchange_rule(scene.request, issued.client)
    require_granted(response, "the code exchange", see=see)


@when(
    parsers.re(
        r"the application exchanges the code without (?:a code verifier|the (?P<field>\w+) field)"
    )
)
@premise(touches=lambda field: ("code", "missing_field") if field else ("code",))
def exchange_without(
    scene: Scene,
    target: Target,
    authorizer: Authorizer,
    code: IssuedCode | None,
    field: str | None,
) -> None:
    """An exchange missing one field (or, with PKCE, missing its verifier)."""
    exchange(scene, target, code, **{field or "code_verifier": None})
    missing = f"leaving out the {field} field" if field else "leaving out the code verifier"
    _refused_unless(scene, authorizer, code_to_exchange(scene, code), missing)
    if field:
        scene.refusal_rule = RULE.TOKEN_REQUIRED_PARAMS


@when(parsers.re(r"the application exchanges the code with " + WRONG_SECRETS))
@premise(touches=("code", "secret"))
def exchange_wrong_secret(
    scene: Scene, target: Target, authorizer: Authorizer, code: IssuedCode | None, how: str
) -> None:
    """Client authentication fails, also for a near miss of the right secret."""
    issued = code_to_exchange(scene, code)
    exchange(scene, target, code, client_secret=wrong_secret(issued.client, how))
    _refused_unless(scene, authorizer, issued, how)
    scene.refusal_rule = RULE.AUTH_TOKEN_CLIENT_SECRET


@when(
    parsers.parse(
        "the application exchanges the code with the registered redirect URI changed {change}"
    )
)
@premise(touches=("code", "redirect_uri"))
def exchange_changed_uri(
    scene: Scene, target: Target, authorizer: Authorizer, code: IssuedCode | None, change: str
) -> None:
    """An exchange naming a redirect URI that is not exactly the registered one."""
    issued = code_to_exchange(scene, code)
    exchange(scene, target, code, redirect_uri=change_uri(issued.client.redirect_uri, change))
    _refused_unless(scene, authorizer, issued, f"the redirect URI changed {change}")


@when(parsers.parse('the application exchanges the code with the token type "{token_type}"'))
@premise(touches=("code", "token_type"))
def exchange_token_type(
    scene: Scene, target: Target, authorizer: Authorizer, code: IssuedCode | None, token_type: str
) -> None:
    """token_type on the exchange (only bearer allowed)."""
    response = exchange(scene, target, code, token_type=token_type)
    issued = code_to_exchange(scene, code)
    _refused_unless(scene, authorizer, issued, f'the token type "{token_type}"')
    if token_type == "mac":  # noqa: S105 - a token type name
        target.observations.describe("token_type_mac", bool(issued_tokens(response)))


def other_valid_uri(issued: IssuedCode) -> str:
    """A further registered URI where the profile names one, else the loopback URI the code
    was issued for on another port."""
    others = [uri for uri in issued.client.more_redirect_uris if uri != issued.redirect_uri]
    if others:
        return others[0]
    port = next(p for p in OTHER_PORTS if urlsplit(issued.redirect_uri).port != p)
    return loopback_uri(issued.redirect_uri, port)


@when("the application exchanges the code with another redirect URI it may use")
@premise(touches=("code",))
def exchange_other_valid_uri(
    scene: Scene, target: Target, authorizer: Authorizer, code: IssuedCode | None
) -> None:
    """Another URI the application may use than the code was issued for (spec 4.1)."""
    issued = code_to_exchange(scene, code)
    exchange(scene, target, code, redirect_uri=other_valid_uri(issued))
    _refused_unless(scene, authorizer, issued, "another redirect URI than it was issued for")


@when(parsers.re(r"the application exchanges the code with " + PKCE_VALUES))
@premise(touches=("code",))
def exchange_pkce_value(
    scene: Scene, target: Target, authorizer: Authorizer, code: IssuedCode | None, which: str
) -> None:
    """PKCE done right (the verifier), or the challenge itself sent as the verifier: right
    for plain, wrong for S256."""
    issued = code_to_exchange(scene, code)
    value = issued.verifier if which == "the matching code verifier" else issued.challenge
    assert value, "the request carried no code challenge"
    exchange(scene, target, code, code_verifier=value)
    _refused_unless(scene, authorizer, issued, which)


@when("the application exchanges the code with a different code verifier")
@premise(touches=("code",))
def exchange_other_verifier(
    scene: Scene, target: Target, authorizer: Authorizer, code: IssuedCode | None
) -> None:
    """A verifier that does not agree with the challenge."""
    response = exchange(scene, target, code, code_verifier=new_verifier())
    _refused_unless(scene, authorizer, code_to_exchange(scene, code), "a different verifier")
    target.observations.describe("pkce", not issued_tokens(response))


@when("the application exchanges the code with a code verifier of its own")
@premise(touches=("code",))
def exchange_unasked_verifier(
    scene: Scene, target: Target, authorizer: Authorizer, code: IssuedCode | None
) -> None:
    """A verifier for a code issued without a challenge (PKCE downgrade)."""
    exchange(scene, target, code, code_verifier=new_verifier())
    _refused_unless(scene, authorizer, code_to_exchange(scene, code), "a code verifier")


@when(
    parsers.re(
        r"the application exchanges the code with all parameters in the URL query string"
        r"(?: of a (?P<method>GET|POST) request)?$"
    )
)
@premise(touches=("code", "url_parameters"))
def exchange_in_query(
    scene: Scene,
    target: Target,
    authorizer: Authorizer,
    code: IssuedCode | None,
    method: str | None,
) -> None:
    """Credentials in the URL, which RFC 6749 forbids, with a POST (an empty body) or a GET."""
    issued = code_to_exchange(scene, code)
    fields = {
        "grant_type": "authorization_code",
        "code": issued.code,
        "client_id": issued.client.client_id,
        "client_secret": issued.client.client_secret,
        "redirect_uri": issued.redirect_uri,
    }
    if issued.verifier:
        fields["code_verifier"] = issued.verifier
    scene.keep(target.service.token_request(fields, in_query=True, method=method or "POST"))
    _refused_unless(scene, authorizer, issued, "its parameters in the URL")


@when("another web application exchanges the code with its own credentials")
@premise(touches=("code",))
def exchange_by_other(
    scene: Scene, target: Target, authorizer: Authorizer, code: IssuedCode | None
) -> None:
    """A code stolen by another registered application."""
    issued = code_to_exchange(scene, code)
    scene.keep(_foreign_exchange(target, issued))
    _refused_unless(scene, authorizer, issued, "another application presenting it")


def _foreign_exchange(target: Target, issued: IssuedCode) -> httpx.Response:
    """Another registered application presents the code as its own: its own credentials and
    its own registered redirect URI (one fault only, the code's owner: a server may check the
    redirect URI first, as spec 4.2 lets it), and the code's verifier."""
    other = target.profile.client("other_web")
    verifier = {"code_verifier": issued.verifier}
    return target.service.exchange(other, issued.code, other.redirect_uri, verifier)


@when(parsers.re(r"the service is asked to exchange a code " + INVALID))
@premise(touches=("code", "invalid"))
def exchange_invalid_code(
    scene: Scene, target: Target, authorizer: Authorizer, code: IssuedCode | None, how: str
) -> None:
    """A code exchange of the application with a code that is not valid, otherwise right:
    never issued, near the issued one, used already, or issued to another application (which
    then presents it, so the code's owner is the one fault)."""
    issued = code_to_exchange(scene, code)
    if how == "that the service never issued":
        exchange(scene, target, issued, code=NEVER_ISSUED)
    elif how == "that was already used":
        exchange(scene, target, issued)
        require_granted(scene.last(), "the first exchange", see=exchange_rule(None, issued.client))
        exchange(scene, target, issued)
    elif how == "issued to another application":
        scene.keep(_foreign_exchange(target, issued))
    else:
        exchange(scene, target, issued, code=near_miss(issued.code, how))
    scene.refusal_rule = RULE.TOKEN_CODE_SINGLE_USE if "used" in how else ""
    _refused_unless(scene, authorizer, issued, f"a code {how}")


@when(parsers.parse('the application asks for tokens with the grant type "{grant_type}"'))
@premise()
def other_grant_type(scene: Scene, target: Target, grant_type: str) -> None:
    """A grant type the service does not offer."""
    client, profile = scene.app(), target.profile
    fields = {
        "grant_type": grant_type,
        "client_id": client.client_id,
        "client_secret": client.client_secret,
        "username": profile.user.username,
        "password": "not-the-password",
        "scope": profile.scope("profile"),
    }
    scene.keep(target.service.token_request(fields))
