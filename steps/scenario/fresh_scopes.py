"""Scope sets the user has not approved before: the premise of the rules about
approval_prompt=auto (spec 4.1) and about the first offline exchange.

With `auto` a provider skips the consent page for a scope set it holds an approval of, and the
real ones differ in what counts: musicbrainz-server and the bundled server want exactly the
same set, with no end while its grant lives (an earlier run's approvals count too);
metabrainz.org takes any live token whose scopes include the request's. So the sets come from
two pools no approval of the suite can reach across:

- `to_approve()`: `profile`, `email` and one or two tag-like scopes other than
  `submit_barcode`. The scenarios that approve a "new" set draw here; when no consent page
  comes (an earlier approval covered it) the step draws again (steps/definitions/decision.py).
  No draw equals or includes the features' "email submit_isrc submit_barcode", the set whose
  scenario wants no other live grant of it (consent after the access token was revoked:
  a live draw of that set, or on metabrainz.org of a superset, would answer for it).
- `never_approved()`: three tag-like scopes, perhaps `profile`, never `email`. No scenario
  approves such a set, and no set the suite approves holds three tag-like scopes (the draws
  above hold two at most, the features' fixed sets two at most; the set of all seven only
  gets a code, never a token). So neither an equal set nor a covering one was approved, in
  this run or any earlier one.

The draws were once one pool of up to four tag-like scopes: on metabrainz.org, 1 run in 18
drew a set inside an earlier approved draw and failed RULE.AUTHZ_APPROVAL_AUTO_NEW_SCOPES
against a provider that keeps the rule (tests/suite/test_fresh_scopes.py).
"""

from __future__ import annotations

import itertools
import random

from steps.profiles.keys import SPEC_SCOPES

TAG_LIKE = SPEC_SCOPES[2:]
#: The most tag-like scopes a set the suite approves may hold.
MOST_APPROVED = 2
#: The tag-like scopes of the draws to approve (see the module's docstring).
DRAWN_TO_APPROVE = tuple(scope for scope in TAG_LIKE if scope != "submit_barcode")


def to_approve() -> str:
    """A set for a scenario that approves a set seen for the first time."""
    chosen = random.sample(DRAWN_TO_APPROVE, k=random.randint(1, MOST_APPROVED))
    return " ".join(["profile", "email", *chosen])


def every_to_approve() -> list[str]:
    """Every set `to_approve` may draw, in a random order: a step that must find one not
    approved before tries each once (on a provider where a live grant covers its subsets, a
    handful of earlier approvals cover most of the pool, and draws repeat)."""
    sets = [
        " ".join(["profile", "email", *chosen])
        for size in range(1, MOST_APPROVED + 1)
        for chosen in itertools.combinations(DRAWN_TO_APPROVE, size)
    ]
    random.shuffle(sets)
    return sets


def never_approved() -> str:
    """A set no scenario of the suite approves, nor includes in a set it approves."""
    chosen = random.sample(TAG_LIKE, k=MOST_APPROVED + 1)
    return " ".join([*_perhaps("profile"), *chosen])


def _perhaps(scope: str) -> list[str]:
    return [scope] if random.random() < 0.5 else []
