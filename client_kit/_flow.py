"""One login attempt from its URL to its tokens, reported as events (data, not prose).

The desktop login, :class:`client_kit._handle.LoginHandle` (``start_login``, ``alogin``) and
``complete_login`` all run :class:`LoginRun` (built in one place, ``LoginSteps.finish``), so
a console, an asyncio program and a GUI see the same steps:

``authorization_url`` -> ``waiting`` -> ``tick``... -> ``received`` -> (``scopes_differ``)
-> ``done``; or ``failed`` with a ``reason`` (and the exception in ``error``). A pasted
value that is not a usable code gives ``input_rejected`` and the login keeps waiting.
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, get_args

from client_kit._authorization import AuthorizationRequest, check_redirect
from client_kit._errors import (
    InvalidRequest,
    KitError,
    LoginCancelled,
    LoginIntercepted,
    LoginRequired,
    LoginTimeout,
    StateMismatch,
)

if TYPE_CHECKING:
    from client_kit._tokens import TokenSet

#: the kinds of :class:`LoginEvent`, in the order a login meets them
EventKind = Literal[
    "authorization_url",
    "waiting",
    "tick",
    "received",
    "input_rejected",
    "scopes_differ",
    "failed",
    "done",
]
KINDS: tuple[EventKind, ...] = get_args(EventKind)
AUTHORIZATION_URL: EventKind = "authorization_url"
WAITING: EventKind = "waiting"
TICK: EventKind = "tick"
RECEIVED: EventKind = "received"
INPUT_REJECTED: EventKind = "input_rejected"
SCOPES_DIFFER: EventKind = "scopes_differ"
FAILED: EventKind = "failed"
DONE: EventKind = "done"

#: a mistyped pasted code is asked for again this many times in all
PASTE_ATTEMPTS = 3


@dataclass(frozen=True)
class LoginEvent:
    """One step of a login, for an application to show as it likes."""

    kind: EventKind
    message: str = ""
    #: ``authorization_url``: the URL to show a person (it holds the login's ``state``)
    url: str | None = None
    #: ``authorization_url``: what to open in a browser (see AuthorizationRequest.browser_url)
    browser_url: str | None = None
    #: seconds left to wait (``waiting``, ``tick``); None: no limit
    remaining: float | None = None
    #: ``waiting``: the user may also paste the redirected URL or the code
    accepts_paste: bool = False
    #: ``failed``, ``input_rejected``: why, in a sentence
    reason: str | None = None
    error: KitError | None = field(default=None, repr=False)
    username: str | None = None
    requested: tuple[str, ...] = ()
    granted: tuple[str, ...] = ()


Emit = Callable[[LoginEvent], None]
#: where an answer came from: the loopback listener or the user's paste; ``intercepted``: the
#: listener saw its launcher opened twice (someone else may hold the login's URL)
Source = Literal["loopback", "paste", "intercepted"]
#: one answer to the authorization request: its source and its query parameters
Answer = tuple[Source, dict[str, str]]
#: the answers of one login, in arrival order (listener and pastes share it)
Answers = queue.Queue[Answer]
#: waits for the next answer (seconds left) and returns it
NextInput = Callable[[float], Answer]


def ignore(event: LoginEvent) -> None:
    return None


def authorization_url_event(request: AuthorizationRequest) -> LoginEvent:
    """The ``authorization_url`` event of a begun login."""
    return LoginEvent(
        AUTHORIZATION_URL,
        "Open this URL to log in.",
        url=request.url,
        browser_url=request.browser_url,
    )


class Exchanger(Protocol):
    """What a run hands the code to (the login's steps: :mod:`client_kit._twostep`)."""

    def exchange(
        self, request: AuthorizationRequest, code: str, *, fetch_user: bool, emit: Emit
    ) -> TokenSet:
        """Exchange ``code``, save the tokens, report ``done``."""
        ...


class LoginRun:
    """Waits for a code (callback or paste), exchanges it, reports each step."""

    def __init__(
        self,
        steps: Exchanger,
        request: AuthorizationRequest,
        next_input: NextInput,
        *,
        timeout: float,
        emit: Emit = ignore,
        cancel: threading.Event | None = None,
        fetch_user: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.steps = steps
        self.request = request
        self.next_input = next_input
        self.timeout = timeout
        self.emit = emit
        self.cancel = cancel
        self.fetch_user = fetch_user
        self.clock = clock

    def run(self) -> TokenSet:
        """The saved tokens; raises the :class:`KitError` that ended the login."""
        deadline = self.clock() + self.timeout
        attempts = 0
        rejection: KitError | None = None
        while True:
            remaining = deadline - self.clock()
            try:
                if remaining <= 0:
                    raise self._timed_out()
                source, params = self.next_input(remaining)
            except LoginCancelled as exc:
                # input ended after a rejected paste: that rejection is the reason
                cancelled = self.cancel is not None and self.cancel.is_set()
                if rejection is not None and not cancelled and not isinstance(exc, LoginTimeout):
                    raise rejection from None
                if not isinstance(exc, LoginTimeout):
                    raise
                raise self._timed_out() from None
            if source == "intercepted":
                raise LoginIntercepted(
                    "the login's page was opened twice: another program may have read its "
                    "address, so the login was stopped; start it again"
                )
            pasted = source == "paste"
            try:
                code = check_redirect(params, self.request.state, pasted=pasted)
            except (StateMismatch, InvalidRequest) as exc:
                if not pasted or attempts + 1 >= PASTE_ATTEMPTS:
                    raise
                attempts += 1
                rejection = self._rejected(exc, "that is not the code or the URL of this login")
                continue
            self.emit(LoginEvent(RECEIVED, "The authorization came back; finishing the login."))
            self._check_cancelled()
            try:
                return self.steps.exchange(
                    self.request, code, fetch_user=self.fetch_user, emit=self.emit
                )
            except LoginRequired as exc:
                if not pasted or attempts + 1 >= PASTE_ATTEMPTS:
                    raise
                attempts += 1
                rejection = self._rejected(exc, "the service did not accept that code")

    def _timed_out(self) -> LoginTimeout:
        return LoginTimeout(
            f"no answer from the browser within {self.timeout:g} seconds",
            seconds=self.timeout,
            oob=self.request.method == "oob",
        )

    def _rejected(self, exc: KitError, reason: str) -> KitError:
        self.emit(
            LoginEvent(
                INPUT_REJECTED,
                f"{reason[0].upper()}{reason[1:]}; check it and paste it again.",
                reason=reason,
                error=exc,
            )
        )
        return exc

    def _check_cancelled(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise LoginCancelled("login cancelled")


def queue_input(answers: Answers, emit: Emit, cancel: threading.Event | None = None) -> NextInput:
    """``next_input`` for a :class:`LoginRun` fed by a queue (listener, pastes)."""

    def tick(left: int) -> None:
        emit(LoginEvent(TICK, remaining=float(left)))

    return lambda remaining: wait_for_answer(answers, remaining, cancel=cancel, tick=tick)


def wait_for_answer(
    answers: Answers,
    timeout: float,
    *,
    cancel: threading.Event | None = None,
    tick: Callable[[int], None] | None = None,
) -> Answer:
    """The first callback or paste; Ctrl-C and ``cancel`` stay responsive (short waits)."""
    deadline = time.monotonic() + timeout
    last = -1
    while True:
        if cancel is not None and cancel.is_set():
            raise LoginCancelled("login cancelled")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise LoginTimeout(
                f"no answer from the browser within {timeout:g} seconds", seconds=timeout
            )
        whole = math.ceil(remaining)
        if tick is not None and whole != last:
            last = whole
            tick(whole)
        try:
            return answers.get(timeout=min(0.25, remaining))
        except queue.Empty:
            continue
