"""The broken targets, by endpoint; importing this package registers them all.

Each mutation breaks one rule of the spec (or an RFC) and nothing else: `breaks` names the
rules the suite must report as failing (spec) or warning (rfc), `also` the rules run alongside
that must still pass. Rule ids are those of features/rules.toml (a test checks they exist).
The one-rule defects of the classes a suite misses (premises, readers, variants, flaky) go to
full runs instead (registry.ONE_RULE, tests/suite/test_one_defect_one_verdict.py).
"""

from tests.suite.broken.mutations import (
    authorize,
    conforming,
    exact_match,
    flaky,
    leniency,
    pkce,
    premises,
    readers,
    refresh,
    revoke,
    sampling,
    token,
    transport,
    userinfo,
    variants,
)
from tests.suite.broken.mutations import families as _families  # noqa: F401 - registers
from tests.suite.broken.registry import MUTATIONS, ONE_RULE, Mutation, find

__all__ = [
    "MUTATIONS",
    "ONE_RULE",
    "Mutation",
    "authorize",
    "conforming",
    "exact_match",
    "find",
    "flaky",
    "leniency",
    "pkce",
    "premises",
    "readers",
    "refresh",
    "revoke",
    "sampling",
    "token",
    "transport",
    "userinfo",
    "variants",
]
