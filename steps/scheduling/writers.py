"""Which steps may change the state of grants on the target (the *writers* of
steps/scheduling/isolation.py), read from their words."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Steps that may change the state of a grant on the target (or depend on one being fresh).
WRITER_STEP = re.compile(
    r"\brefresh(?:es|ed)?\b"  # any refresh (rotation, family revocation, reuse)
    r"|\brevok(?:e|es|ed)\b"  # the application's or the user's revocation
    r"|exchanges the code again"  # a replayed code
    r"|from the first exchange"  # tokens of a replayed code
    r"|another (?:web )?application (?:exchanges|refreshes|revokes)"  # cross-client attempts
    r"|seconds pass|has expired"  # the test clock moves (every grant ages)
    r"|over plain HTTP"  # a token sent in clear may rightly be revoked
)
#: Steps that name a refresh but only read an answer already received (checks of a response).
READ_ONLY_STEP = re.compile(
    r"^the refresh (?:answered|said|is refused)\b"
    r"|^the response carries (?:a|no|the same) refresh token$"
)


def writes(step: str) -> bool:
    """Whether a step may change the state of grants."""
    return bool(WRITER_STEP.search(step)) and not READ_ONLY_STEP.search(step)


def is_writer(steps: Iterable[str]) -> bool:
    """Whether a scenario with these steps may change the state of grants."""
    return any(writes(step) for step in steps)
