"""Steps at the user information endpoint (features: user information, scopes, transport): the
requests, each a negative one with its twin where the service must refuse it; what the answers
said is judged in userinfo_outcomes.py."""

from __future__ import annotations

import contextlib

import httpx
from pytest_bdd import parsers, when

from steps.definitions.lifetime import ACCESS_TOKEN_LIFETIME
from steps.http.readers import granted, reveals
from steps.outcomes import require
from steps.profiles.profile import TargetProfile
from steps.rules.ids import RULE
from steps.scenario.clock import Clock
from steps.scenario.grants import GrantCache
from steps.scenario.kinds import premise
from steps.scenario.negatives import Negative, TwinSender
from steps.scenario.observations import Observations
from steps.scenario.probes import INVALID, NEVER_ISSUED, delivery, near_miss
from steps.scenario.scene import Scene
from steps.scenario.service import Service
from steps.scenario.target import Target

#: Seconds past an access token's lifetime at which it is presented as expired.
EXPIRY_MARGIN = 100
#: The rule that says the user information is returned for each way of passing the token.
DELIVERY_RULES = {
    "header": RULE.USERINFO_HEADER,
    "body": RULE.USERINFO_POST_BODY,
    "query": RULE.USERINFO_QUERY,
}


def _granting_token(scene: Scene, grants: GrantCache, target: Target) -> str:
    """A live access token like the scene's, with the profile and email scopes: of the same
    kind of application, from a refresh where the scene's came from one (the twin of a request
    whose fault is the token it presents)."""
    held = scene.grant()
    role, offline = held.client.role, held.offline or held.client.role == "installed"
    sibling = grants.get(role, "profile email", offline=offline)
    if held.history and sibling.refresh_token:  # the scene's token came from a refresh
        answer = granted(target.service.refresh(sibling.client, sibling.refresh_token))
        if answer is not None:
            sibling.renewed(answer.fields, target.clock.now())
    return sibling.access_token


def _reads_user(service: Service, token: str, how: str, value: str, lacks: str) -> TwinSender:
    """The twin of a user information request: `token` passed `how` gives `value` back. Its
    refusal is the delivery's rule when the token is not accepted that way at all, and `lacks`
    when it is but the answer lacks the value."""

    def send_twin() -> str:
        response = service.userinfo(token, how)
        if not response.is_success:
            return DELIVERY_RULES.get(how, RULE.USERINFO_HEADER)
        return "" if reveals(response, value) else lacks

    return send_twin


def _token_or_doubled(way: str) -> tuple[str, ...]:
    """A token passed one way, or two at once."""
    return ("doubled_token",) if "+" in delivery(way) else ("token",)


@when(parsers.re(r"the application asks for the user's profile with the token (?P<way>in .+)"))
@premise(touches=_token_or_doubled)
def ask_profile(
    scene: Scene,
    service: Service,
    observations: Observations,
    grants: GrantCache,
    target: Target,
    profile: TargetProfile,
    way: str,
) -> None:
    """User information with the token passed one way (or two). A token without the profile
    (or email) scope, or passed two ways, is a negative: its twin is a token with the scopes
    passed the same way (one way: the header, where it went two)."""
    how = delivery(way)
    grant = scene.grant()
    response = scene.keep(service.userinfo(grant.access_token, how))
    scene.delivery = how
    scopes = grant.scope.split() if grant.scope else ["profile", "email"]
    if "profile" not in scopes:
        scene.refusal_rule = RULE.SCOPE_PROFILE_WITHHELD
    elif how == "body":  # section 9: a token with the profile scope, read from a form body
        observations.describe("userinfo_post_body", response.status_code == 200)
    if "+" in how:
        user, twin_how, lacks = profile.user.username, "header", RULE.USERINFO_HEADER
        fault = "the token's second way"
        token = grant.access_token
    elif "profile" not in scopes or ("email" not in scopes and profile.user.email):
        wanted = "profile" if "profile" not in scopes else "email"
        user = profile.user.username if wanted == "profile" else str(profile.user.email)
        lacks = (
            RULE.SCOPE_PROFILE_GRANTS_PROFILE
            if wanted == "profile"
            else RULE.SCOPE_EMAIL_GRANTS_EMAIL
        )
        twin_how, fault = how, f"a token lacking the {wanted} scope"
        token = _granting_token(scene, grants, target)
    else:
        return
    scene.negative = Negative(fault, _reads_user(service, token, twin_how, user, lacks))


@when(
    parsers.parse(
        'the application asks for the user\'s profile with the token under the "{scheme}" scheme'
    )
)
@premise(touches=("token", "scheme"))
def ask_profile_scheme(scene: Scene, service: Service, profile: TargetProfile, scheme: str) -> None:
    """The token under another authorization scheme (or none: the token alone); its twin, the
    same token under Bearer."""
    word = "" if scheme == "no scheme word" else scheme
    token = scene.grant().access_token
    scene.keep(service.userinfo(token, f"scheme:{word}"))
    send_twin = _reads_user(service, token, "header", profile.user.username, RULE.USERINFO_HEADER)
    scene.negative = Negative(f"the scheme {scheme!r}", send_twin)


@when("the application asks for the user's profile without a token")
@premise()
def ask_profile_no_token(
    scene: Scene, service: Service, grants: GrantCache, profile: TargetProfile
) -> None:
    """No credentials; the twin, a live token in the header."""
    scene.keep(service.userinfo(None))
    token = grants.get("web", "profile email", offline=True).access_token
    send_twin = _reads_user(service, token, "header", profile.user.username, RULE.USERINFO_HEADER)
    scene.negative = Negative("a missing token", send_twin)


@when(
    parsers.re(
        r"the application asks for the user's profile with (?:its access token|a token) "
        + INVALID
        + r", passed (?P<way>in .+)"
    )
)
@premise(touches=("token", "invalid"))
def ask_profile_invalid(
    scene: Scene,
    service: Service,
    clock: Clock,
    grants: GrantCache,
    profile: TargetProfile,
    how: str,
    way: str,
) -> None:
    """A token that is not valid, passed one way: never issued, near the grant's access token
    (what a comparison of a prefix or a fixed length lets through), revoked by the application
    (a premise: the revocation accepted) or past its lifetime. Where a spec rule requires the
    token to be refused, that rule is noted for the checks of the refusal's shape. Its twin is
    the valid token passed the same way: asked first, where the revocation or the time that
    passes is what ends it."""
    unknown = how == "that the service never issued"
    scene.delivery = delivery(way)
    user = profile.user.username
    valid = (
        grants.get("web", "profile email", offline=True).access_token
        if unknown
        else scene.grant().access_token
    )
    see = DELIVERY_RULES.get(scene.delivery, RULE.USERINFO_HEADER)
    send_twin = _reads_user(service, valid, scene.delivery, user, see)
    if how in ("that was revoked", "that has expired"):  # the valid token, before it ended
        before = send_twin()
        send_twin = lambda: before  # noqa: E731 - the answer kept
    scene.negative = Negative(f"a token {how}", send_twin)
    token = NEVER_ISSUED if unknown else valid
    if how == "that was revoked":
        revoked = service.revoke(scene.app(), token)
        require(revoked.is_success, f"the revocation answered {revoked.status_code}",
                see=RULE.REVOKE_EMPTY_200)  # fmt: skip
        scene.refusal_rule = (
            RULE.REVOKE_ACCESS_KEEPS_REFRESH if scene.grant().offline
            else RULE.REVOKE_ONLINE_WHOLE_GRANT
        )  # fmt: skip
    elif how == "that has expired":
        clock.advance(ACCESS_TOKEN_LIFETIME + EXPIRY_MARGIN)
        scene.refusal_rule = RULE.LIFETIME_ACCESS_EXPIRES
    elif not unknown:
        token = near_miss(token, how)
    scene.keep(service.userinfo(token, scene.delivery))


@when(
    parsers.re(
        r"the application asks for the user's profile over plain HTTP"
        r"(?: with the token (?P<way>in .+))?"
    )
)
@premise(touches=("token",))
def ask_profile_plain_http(
    scene: Scene, service: Service, profile: TargetProfile, way: str | None
) -> None:
    """The bearer token over http:// (then revoked over HTTPS: it crossed the wire in clear).
    Its twin, the same token passed the same way over HTTPS, is asked first."""
    token, how = scene.grant().access_token, delivery(way)
    see = DELIVERY_RULES.get(how, RULE.USERINFO_HEADER)
    over_https = _reads_user(service, token, how, profile.user.username, see)()
    scene.negative = Negative("plain HTTP", lambda: over_https)
    try:
        scene.keep(service.userinfo(token, how, base=profile.plain_http_base))
    except httpx.HTTPError as exc:
        scene.transport_error = exc
    finally:
        with contextlib.suppress(httpx.HTTPError):
            service.revoke(scene.app(), token)
