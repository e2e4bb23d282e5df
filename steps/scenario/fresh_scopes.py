"""Scope sets the user has not approved before: the premise of the rules about
approval_prompt=auto (spec 4.1) and about the first offline exchange.

With `auto` a provider skips the consent page for a scope set it holds an approval of; the
real ones differ in what covers a request: musicbrainz-server and the bundled server want
exactly the same set, metabrainz.org any live token whose scopes include the request's. So a
set drawn at random is "new" only if no set approved earlier in the run includes it. Every draw
here takes three of the five tag-like scopes that no other draw of the run has taken (and
perhaps `profile` or `email`): no earlier draw includes it, nor does any fixed set of the
features (each has at most two tag-like scopes; the one with all seven only gets a code, never a
token). Without that, 1 run in 18 drew a subset of an earlier draw on metabrainz.org and
failed RULE.AUTHZ_APPROVAL_AUTO_NEW_SCOPES against a provider that keeps the rule.

Under `--workers` the run's draws are shared through a file (locked, like the clock lock), so
two workers never take the same three. An earlier run's approvals on a long-lived deployment
are beyond what a run can know; the offline steps draw again when no consent page came.
"""

from __future__ import annotations

import fcntl
import random
from itertools import combinations
from pathlib import Path

from steps.outcomes import NotChecked
from steps.profiles.keys import SPEC_SCOPES

TAG_LIKE = SPEC_SCOPES[2:]
#: The draws a run can make: no two of them include one another.
TRIPLES = tuple(combinations(TAG_LIKE, 3))


class FreshScopes:
    """The run's draws of new scope sets; `ledger` is the file shared by a run's workers
    (None: this process is the whole run)."""

    def __init__(self, ledger: Path | None = None) -> None:
        self.ledger = ledger
        self._taken: set[tuple[str, ...]] = set()

    def draw(self, *, extra: tuple[str, ...] = ("profile", "email")) -> str:
        """A scope set no earlier draw of the run includes: three tag-like scopes not taken
        before, and at random some of `extra`."""
        triple = self._take()
        chosen = [scope for scope in extra if random.random() < 0.5]
        return " ".join([*chosen, *triple])

    def _take(self) -> tuple[str, ...]:
        if self.ledger is None:
            return self._take_from(self._taken)
        with self.ledger.open("a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            handle.seek(0)
            taken = {tuple(line.split()) for line in handle.read().splitlines() if line}
            triple = self._take_from(taken)
            handle.write(" ".join(triple) + "\n")
            return triple

    @staticmethod
    def _take_from(taken: set[tuple[str, ...]]) -> tuple[str, ...]:
        free = [triple for triple in TRIPLES if triple not in taken]
        if not free:
            raise NotChecked(
                f"the run has drawn all {len(TRIPLES)} scope sets that no other includes: "
                "no set is left that the user has not approved before"
            )
        triple = random.choice(free)
        taken.add(triple)
        return triple
