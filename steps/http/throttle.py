"""Being a good guest: wait out a target's throttling (bounded), and pace failed requests.

A 429 (or a 503 with Retry-After) says nothing about the rule a scenario checks: the suite
waits as told, within bounds, and otherwise gives up with `Throttled` ("could not be
checked"). The suite also fails on purpose (wrong secrets, codes, tokens); `FailureBudget`
keeps those under a rate a reasonable brute-force guard allows, per client_id in a sliding
minute. Its record lives in a file shared by pytest-xdist workers and by runs in a row against
the same target, because the target's guard counts them all: a file of the user's own run-wide
folder (steps/safety/run_files.py), locked through a lock file beside it and replaced whole.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import time
from collections.abc import Callable, Iterator
from email.utils import parsedate_to_datetime
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx

from steps.outcomes import Throttled
from steps.safety.run_files import locked, read_state, run_folder, write_state

#: Longest single wait for a throttled request, and for all of a run's throttled requests.
MAX_WAIT = 60.0
TOTAL_WAIT = 300.0
#: Retry-After when a 429 gives none.
DEFAULT_RETRY = 5.0
#: Failed requests per client and minute the suite allows itself by default (a guard of 20
#: per minute, a common choice, is then never reached).
DEFAULT_FAILURES_PER_MINUTE = 15
WINDOW = 60.0
#: Errors that a brute-force guard counts (RFC 6749 5.2): wrong credentials, codes, tokens.
FAILURE_ERRORS = frozenset({"invalid_client", "invalid_grant", "invalid_token"})
#: What the budget's state file says it is (steps/safety/run_files.py).
BUDGET_KIND = "failure budget"


def retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait before trying again, or None when the answer is not throttling."""
    header = response.headers.get("retry-after")
    if response.status_code == 503 and header is None:
        return None
    if response.status_code not in (429, 503):
        return None
    if header is None:
        return DEFAULT_RETRY
    header = header.strip()
    if header.isdigit():
        return float(header)
    try:
        return max(0.0, parsedate_to_datetime(header).timestamp() - time.time())
    except (TypeError, ValueError):
        return DEFAULT_RETRY


class ThrottleWaits:
    """How long the run has waited for throttling, and the decision to wait once more."""

    def __init__(self, max_wait: float = MAX_WAIT, total: float = TOTAL_WAIT) -> None:
        self.max_wait, self.total, self.waited = max_wait, total, 0.0

    def wait(self, response: httpx.Response) -> bool:
        """Sleep as the response asks (True: send again); False when it is not throttling;
        Throttled when the wait would be longer than the suite may wait."""
        delay = retry_after(response)
        if delay is None:
            return False
        if delay > self.max_wait or self.waited + delay > self.total:
            raise Throttled(
                f"the target throttled the suite: {response.status_code} with Retry-After "
                f"{delay:.0f} s (the suite waits at most {self.max_wait:.0f} s per request, "
                f"{self.total:.0f} s per run; {self.waited:.0f} s spent)",
                retry_after=delay,
            )
        self.waited += delay
        time.sleep(delay)
        return True


def client_of(request: httpx.Request) -> str | None:
    """The client_id a request authenticates as (form body, query or HTTP Basic)."""
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("basic "):
        with contextlib.suppress(ValueError):
            decoded = base64.b64decode(auth[6:].strip(), validate=True).decode()
            return decoded.partition(":")[0] or None
    fields = dict(parse_qsl(urlsplit(str(request.url)).query))
    if request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        fields |= dict(parse_qsl(request.content.decode("utf-8", errors="replace")))
    return fields.get("client_id") or None


def is_failure(response: httpx.Response) -> bool:
    """An answer a guard would count as a failed attempt: 401, or an OAuth error about the
    client, the grant or the token."""
    if response.status_code == 401:
        return True
    if response.status_code < 400 and '"error"' not in response.text:
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("error") in FAILURE_ERRORS


class FailureBudget:
    """At most `per_minute` failed requests per client_id in any sliding minute."""

    def __init__(self, target: str, per_minute: int, directory: Path | None = None) -> None:
        self.per_minute = per_minute
        digest = hashlib.sha256(target.encode()).hexdigest()[:16]
        #: The shared record and its lock (made and checked only when the budget is on).
        self.path = Path(f"failures-{digest}.json")
        self.lock_path = self.path.with_suffix(".lock")
        if per_minute > 0:
            folder = run_folder(directory)
            self.path, self.lock_path = folder / self.path, folder / self.lock_path
        #: Seconds this process waited for the budget (reported, and for tests).
        self.waited = 0.0
        #: Seconds the target's clock is ahead of ours (a test clock moved forward): a guard
        #: counts failures in the target's minutes.
        self.offset = 0.0
        #: Reads the target's offset afresh (set when the profile names a test clock).
        self.resync: Callable[[], float | None] | None = None

    def now(self) -> float:
        """The time on the target, as far as the suite knows it."""
        return time.time() + self.offset

    def wait_turn(self, client_id: str | None) -> None:
        """Before a request as client_id: wait until one more failure would fit the budget."""
        if not client_id or self.per_minute <= 0:
            return
        synced = False
        while True:
            with self._log() as log:
                recent = log.get(client_id, [])
                if len(recent) < self.per_minute:
                    return
                delay = recent[-self.per_minute] + WINDOW - self.now()
            if delay <= 0:
                return
            if not synced and self.resync is not None:
                synced = True
                offset = self.resync()  # another worker may have moved the target's clock
                if offset is not None and offset > self.offset:
                    self.offset = offset
                    continue
            delay = min(delay, WINDOW)  # a sliding minute never asks for more
            self.waited += delay
            time.sleep(delay)

    def record(self, client_id: str | None) -> None:
        """Count one failed request of client_id."""
        if not client_id or self.per_minute <= 0:
            return
        with self._log() as log:
            log.setdefault(client_id, []).append(self.now())

    @contextlib.contextmanager
    def _log(self) -> Iterator[dict[str, list[float]]]:
        """The shared record, locked, trimmed to the last minute, written back afterwards."""
        with locked(self.lock_path):
            data = read_state(self.path, BUDGET_KIND) or {}
            now = self.now()
            log = {  # a time more than a minute ahead was read on another clock: not ours
                str(k): [t for t in v if isinstance(t, int | float) and -WINDOW < now - t < WINDOW]
                for k, v in data.items()
                if isinstance(v, list)
            }
            yield log
            write_state(self.path, BUDGET_KIND, {k: v for k, v in log.items() if v})
