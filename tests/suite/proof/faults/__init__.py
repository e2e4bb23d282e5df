"""The faults, one per rule that is not an observation, by the area of the spec they break;
importing this package registers them all (tests/suite/proof/fault.py: FAULTS)."""

from tests.suite.proof.faults import (
    answers,
    authorize,
    consent,
    exchange,
    pkce,
    refresh,
    revocation,
    userinfo,
    version,
)

__all__ = [
    "answers",
    "authorize",
    "consent",
    "exchange",
    "pkce",
    "refresh",
    "revocation",
    "userinfo",
    "version",
]
