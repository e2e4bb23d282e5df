"""The broken targets, by endpoint; importing this package registers them all.

Each mutation breaks one rule of the spec (or an RFC) and nothing else: `breaks` names the
rules the suite must report as failing (spec) or warning (rfc), `also` the rules run alongside
that must still pass. Rule ids are those of features/rules.toml (a test checks they exist).
"""

from tests.suite.broken.mutations import (
    authorize,
    conforming,
    exact_match,
    leniency,
    pkce,
    refresh,
    revoke,
    sampling,
    token,
    transport,
    userinfo,
)
from tests.suite.broken.mutations import families as _families  # noqa: F401 - registers
from tests.suite.broken.registry import MUTATIONS, Mutation

__all__ = [
    "MUTATIONS",
    "Mutation",
    "authorize",
    "conforming",
    "exact_match",
    "leniency",
    "pkce",
    "refresh",
    "revoke",
    "sampling",
    "token",
    "transport",
    "userinfo",
]
