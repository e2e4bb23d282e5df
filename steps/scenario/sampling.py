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
