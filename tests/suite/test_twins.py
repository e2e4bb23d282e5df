"""Twins (steps/scheduling/twin_keys.py, steps/run/twins.py): which scenarios share the steps before
their first check, and the copies each replaying twin gets. Whole runs prove the rest: the bundled
run, the broken targets, and the family-revoking target in any order (test_isolation.py)."""

from __future__ import annotations

from steps.consent.base import RedirectResult
from steps.profiles.profile import RegisteredApp
from steps.run.twins import clone
from steps.scenario.scene import AuthRequest, HeldGrant, Scene
from steps.scheduling.twin_keys import twin_of

GRANT = 'the user has just granted the web application offline access to "profile email"'
REFRESH = "the application refreshes the access token"


def test_the_premise_is_everything_before_the_first_check() -> None:
    twin = twin_of([GRANT, REFRESH, "the refresh answered 200 OK"], ["given", "when", "then"])
    assert twin is not None and twin.key == (GRANT, REFRESH) and twin.size == 2 and twin.pure
    assert twin_of(["the refresh answered 200 OK"], ["then"]) is None
    assert twin_of([GRANT, REFRESH], ["given", "when"]) is None


def test_a_twin_whose_checks_do_more_than_read_is_not_pure() -> None:
    writes = twin_of(
        [GRANT, REFRESH, "the refresh token still yields new access tokens"],
        ["given", "when", "then"],
    )
    acts = twin_of(
        [GRANT, REFRESH, "the refresh answered 200 OK", REFRESH, "the refresh answered 200 OK"],
        ["given", "when", "then", "when", "then"],
    )
    assert writes is not None and not writes.pure
    assert acts is not None and not acts.pure


def test_each_replaying_twin_gets_copies_of_the_state_sharing_identity() -> None:
    client = RegisteredApp("web", "id", "secret", "https://app.example/cb")
    tokens = HeldGrant(client, "profile", "a1", "r1", {"access_token": "a1"}, "json", 0.0)
    request = AuthRequest(client, {"state": "s"})
    scene = Scene(client=client, tokens=tokens, request=request)
    scene.outcome = RedirectResult(url="https://app.example/cb?code=c")
    memo: dict[int, object] = {}
    copied, grant = clone(scene, memo), clone(tokens, memo)
    assert copied is not scene and copied.tokens is grant and grant is not tokens
    assert copied.client is client and copied.outcome is scene.outcome  # frozen: shared
    grant.renewed({"access_token": "a2"}, 1.0)
    copied.request.params["state"] = "changed"  # type: ignore[union-attr]
    copied.responses.append(None)  # type: ignore[arg-type]
    assert tokens.access_token == "a1" and tokens.history == []
    assert request.params == {"state": "s"} and scene.responses == []


def test_the_token_history_travels_with_the_scene() -> None:
    """What the scenario owns is one object: a replaying twin's copy of the scene holds its
    own history, whose first tokens are its own grant (one identity, as recorded)."""
    client = RegisteredApp("web", "id", "secret", "https://app.example/cb")
    tokens = HeldGrant(client, "profile", "a1", "r1", {"access_token": "a1"}, "json", 0.0)
    scene = Scene(client=client, tokens=tokens)
    scene.history.first_tokens, scene.history.sent_refresh_token = tokens, "r1"
    copied = clone(scene, {})
    assert copied.history is not scene.history and copied.history.first_tokens is copied.tokens
    copied.history.sent_refresh_token = "r2"
    assert scene.history.sent_refresh_token == "r1"
