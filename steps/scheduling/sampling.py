"""How many times a cheap check whose answer varies is sampled.

A deployment can be flaky where the suite looks once: the real musicbrainz-server encodes a
non-ASCII `state` twice on the invalid_scope error redirect in 44 of 92 tries, depending on the
order of a Perl hash. One sample finds that about half the time. A check whose input or answer
varies and whose visit is cheap (a page opened or a consent given by an automatic driver) is
therefore made SAMPLES times: enough that a defect showing in at least FLAKY_SHARE of the tries
is found with probability FIND. A manual run asks a person for each visit, so it samples once,
and its report says what that leaves open.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import TypeVar

T = TypeVar("T")

#: The smallest share of tries in which a defect must show to be found with FIND probability.
FLAKY_SHARE = 0.4
FIND = 0.99
SAMPLES = math.ceil(math.log(1 - FIND) / math.log(1 - FLAKY_SHARE))


def sample_count(cheap: bool) -> int:
    """Samples a check takes with this driver."""
    return SAMPLES if cheap else 1


def samples(first: T, again: Callable[[], T], count: int) -> Iterator[T]:
    """The first outcome, then `count - 1` more from visiting again (lazily: a failing sample
    stops the check before the rest are taken)."""
    yield first
    for _ in range(count - 1):
        yield again()


def sampling_note(count: int) -> str:
    """What the report says of a sampled check."""
    if count > 1:
        return (
            f"sampled {count} times: a defect showing in {FLAKY_SHARE:.0%} of tries or more "
            f"is found with probability {FIND:.0%} or more"
        )
    missed = 1 - FLAKY_SHARE
    return (
        f"sampled once (each visit asks a person): a defect showing in {FLAKY_SHARE:.0%} "
        f"of tries is missed with probability {missed:.0%}"
    )


#: Every check, and why it looks once where it does (an empty reason: it samples, SAMPLES times
#: with an automatic consent driver). A check whose answer may vary between tries and costs no
#: person samples; tests/suite/test_sampling.py holds every check to this table.
ONCE_BECAUSE = {
    # the authorization page: each further visit asks no one with an automatic driver
    "receives_code": "",
    "code_in_query": "",
    "carries_state": "",
    "receives_error": "",
    "refused_as": "",
    "error_carries_state": "",
    "error_page": "",
    "consent_shown": "",
    "consent_not_shown": "",
    "no_code": "",
    # the user information endpoint: the same request again changes nothing
    "returns_profile": "",
    "profile_included": "",
    "no_profile": "",
    "email_not_revealed": "",
    "email_included": "",
    "challenge_no_error": "",
    "challenge_error": "",
    "plain_error": "",
    "revoked_200_empty": "",
    # looked at once, and why
    "shown_code": "each out-of-band page is a new code, which the scenario then exchanges",
    "different_client_ids": "the profile's values, no answer of the service",
    "unique_client_ids": "the profile's values, no answer of the service",
    "consent_page_unframeable": "the page's headers are read on the same visit as the consent",
    "landing_page_unframeable": "a logged-out page, read on its own visit of the same request",
    "receives_access_token": "a code is exchanged once: each sample would be a new grant",
    "receives_new_access_token": "each refresh changes the grant (rotation, family revocation)",
    "token_accepted": "the token's acceptance is what its rules state once per combination",
    "has_refresh_token": "a code is exchanged once: each sample would be a new grant",
    "same_refresh_token": "each refresh changes the grant (rotation, family revocation)",
    "answered_json": "a token answer is one per grant or refresh: each sample a new one",
    "lasts_3600": "a token answer is one per grant or refresh: each sample a new one",
    "answered_200": "a token answer is one per grant or refresh: each sample a new one",
    "bearer": "a token answer is one per grant or refresh: each sample a new one",
    "no_store": "a granted answer is one per grant; a refused one counts against the guard",
    "refused": "a deliberate failure counts against the target's guard (failures_per_minute)",
    "token_error": "a deliberate failure counts against the target's guard",
    "invalid_client": "a deliberate failure counts against the target's guard",
    "revoke_refused": "a deliberate failure counts against the target's guard",
    "first_tokens_dead": "the replay that ends the tokens happens once",
    "access_token_state": "a token's state after the event that changed it is read once",
    "refresh_dead": "each refresh try of an ended grant may end more (family revocation)",
    "no_refresh_left": "each refresh try of an ended grant may end more (family revocation)",
    "refresh_alive": "each refresh changes the grant (rotation, family revocation)",
    "revocation_offered": "the endpoint's presence, judged from the answer to any request",
    "offers_oob": "the profile's declaration, no answer of the service",
    "spec_scope_names": "the profile's vocabulary, no answer of the service",
    "token_formats": "an observation (info): recorded, never judged",
    "token_type_case": "an observation (info): recorded, never judged",
    "extra_fields": "an observation (info): recorded, never judged",
    "userinfo_fields": "an observation (info): recorded, never judged",
    "revoke_headers": "an observation (info): recorded, never judged",
}
