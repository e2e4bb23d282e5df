"""A login that runs beside a GUI's event loop: start it, observe it, cancel it.

    handle = session.start_login(["profile"])          # returns at once
    ...                                                 # in a timer of the GUI's loop:
    for event in handle.poll():                         # LoginEvent data, never prose to parse
        show(event.kind, event.message, event.url)
    handle.submit(text_field.get())                     # a pasted URL or code, if any
    handle.cancel()                                     # a button; stored tokens stay as they were

The login runs in a worker thread that never calls ``ui.read_line``: pasted input reaches
it only through :meth:`LoginHandle.submit`. ``on_event`` is called on the worker thread (Qt:
emit a signal; Tk and GTK: use :meth:`LoginHandle.poll` from a timer instead).
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypedDict, Unpack

from client_kit._authorization import parse_pasted
from client_kit._errors import KitError, LoginCancelled
from client_kit._flow import (
    FAILED,
    WAITING,
    Answers,
    Emit,
    LoginEvent,
    authorization_url_event,
    queue_input,
)
from client_kit._twostep import DEFAULT_TIMEOUT, LoginMethod

if TYPE_CHECKING:
    from client_kit._authorization import AuthorizationRequest
    from client_kit._pages import LoopbackPages
    from client_kit._tokens import TokenSet
    from client_kit._twostep import LoginSteps
    from client_kit._ui import UserInterface

#: seconds a cancelled ``alogin`` waits for its worker to stop (it polls 4 times a second, but
#: a check before the browser may be waiting for the network)
CANCEL_GRACE = 5.0


class HandleOptions(TypedDict, total=False):
    """The keyword options of :class:`LoginHandle`, ``start_login`` and ``alogin``."""

    method: LoginMethod
    open_browser: bool
    timeout: float
    ports: Sequence[int]
    pages: LoopbackPages | None
    fetch_user: bool
    check: bool
    on_event: Emit | None


class LoginHandle:
    """One login in a background thread, with its events as data (``session.start_login``
    makes one: it runs the session's login steps and opens the browser through its ``ui``)."""

    def __init__(
        self,
        steps: LoginSteps,
        ui: UserInterface,
        scopes: Sequence[str] = ("profile",),
        *,
        method: LoginMethod = "loopback",
        open_browser: bool = True,
        timeout: float = DEFAULT_TIMEOUT,
        ports: Sequence[int] = (),
        pages: LoopbackPages | None = None,
        fetch_user: bool = True,
        check: bool = True,
        on_event: Emit | None = None,
    ) -> None:
        """``check``: before the URL is announced and the browser opened, check what can be
        checked without the user (see :mod:`client_kit._preflight`); a problem ends the
        login at once with a ``failed`` event."""
        self.steps = steps
        self.ui = ui
        self.scopes = tuple(scopes)
        self.method = method
        self.open_browser = open_browser
        self.timeout = timeout
        self.ports = tuple(ports)
        self.pages = pages
        self.fetch_user = fetch_user
        self.check = check
        self.on_event = on_event
        self.events: queue.Queue[LoginEvent] = queue.Queue()
        self.request: AuthorizationRequest | None = None
        self.tokens: TokenSet | None = None
        self.error: KitError | None = None
        self._inputs: Answers = queue.Queue()
        self._cancel = threading.Event()
        self._finished = threading.Event()
        self._callbacks: list[Callable[[LoginHandle], None]] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="mb-oauth-login", daemon=True)

    # -- the application's side -------------------------------------------------------

    def start(self) -> LoginHandle:
        self._thread.start()
        return self

    def poll(self) -> list[LoginEvent]:
        """The events since the last poll (never blocks)."""
        found = []
        while True:
            try:
                found.append(self.events.get_nowait())
            except queue.Empty:
                return found

    def submit(self, text: str) -> None:
        """What the user pasted: the redirected URL or the code. A wrong one is reported as
        an ``input_rejected`` event and the login keeps waiting."""
        with self._lock:
            self._inputs.put(("paste", parse_pasted(text)))

    def cancel(self) -> None:
        """End the login unless its code is already being exchanged; tokens stay as they were.
        The worker notices within a quarter of a second, closes the loopback listener, reports
        a ``failed`` event (``reason`` "login cancelled") and calls the done callbacks."""
        self._cancel.set()

    def close_listener(self) -> None:
        """Close the loopback listener of this login now (blocks until its sockets are closed;
        a no-op before the login has begun or after it ended)."""
        if self.request is not None:
            self.steps.cancel(self.request)

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the login ended (for tests and scripts, not for a GUI thread)."""
        return self._finished.wait(timeout)

    def result(self) -> TokenSet:
        """The tokens of a finished login; raises what ended it otherwise."""
        if not self.done:
            raise RuntimeError("the login has not finished; poll() or wait() first")
        if self.error is not None:
            raise self.error
        assert self.tokens is not None
        return self.tokens

    def add_done_callback(self, callback: Callable[[LoginHandle], None]) -> None:
        """Call ``callback(handle)`` when the login ends (at once if it has)."""
        with self._lock:
            if not self.done:
                self._callbacks.append(callback)
                return
        callback(self)

    # -- the worker thread ------------------------------------------------------------

    def _emit(self, event: LoginEvent) -> None:
        self.events.put(event)
        if self.on_event is not None:
            try:
                self.on_event(event)
            except Exception:  # an application's bug must not end the login silently
                import logging

                logging.getLogger("client_kit.handle").exception("on_event failed")

    def _run(self) -> None:
        try:
            self.tokens = self._login()
        except KitError as exc:
            self._fail(exc)
        except Exception as exc:
            self._fail(KitError(f"unexpected error: {type(exc).__name__}: {exc}"))
        finally:
            if self.request is not None:
                self.steps.cancel(self.request)
            with self._lock:
                self._finished.set()
                callbacks, self._callbacks = self._callbacks, []
            for callback in callbacks:
                callback(self)

    def _fail(self, exc: KitError) -> None:
        self.error = exc
        self._emit(LoginEvent(FAILED, f"Login failed: {exc}", reason=str(exc), error=exc))

    def _login(self) -> TokenSet:
        steps = self.steps
        self.request = request = steps.begin(
            self.scopes, method=self.method, ports=self.ports, pages=self.pages
        )
        # pastes and loopback callbacks arrive on one queue
        inputs = steps.answers(request) or self._inputs
        with self._lock:
            early, self._inputs = self._inputs, inputs
        while early is not inputs and not early.empty():
            inputs.put(early.get_nowait())
        if self.check:
            steps.check(request)
        self._emit(authorization_url_event(request))
        if self._cancel.is_set():
            raise LoginCancelled("login cancelled")
        if self.open_browser:
            self.ui.open_browser(request.browser_url)
        self._emit(
            LoginEvent(
                WAITING,
                "Waiting for the login to finish in the browser.",
                remaining=self.timeout,
                accepts_paste=True,
            )
        )
        return steps.finish(
            request,
            queue_input(inputs, self._emit, self._cancel),
            timeout=self.timeout,
            emit=self._emit,
            cancel=self._cancel,
            fetch_user=self.fetch_user,
        )


async def await_handle(
    steps: LoginSteps, ui: UserInterface, scopes: Sequence[str], **options: Unpack[HandleOptions]
) -> TokenSet:
    """Run a :class:`LoginHandle` under asyncio (see ``Session.alogin``); ``on_event`` is
    called on the loop's thread.

    Cancelled, it returns (raising ``CancelledError``) only once the loopback listener is
    closed, so that a login started at once on the same registered port finds it free: the
    cancel reaches the worker, the listener is closed in a thread (the loop never waits for a
    socket server to stop), and the worker's end is awaited for a grace period.
    """
    import asyncio

    loop = asyncio.get_running_loop()
    finished: asyncio.Future[None] = loop.create_future()
    on_event = options.get("on_event")

    def call(func: Callable[[], None]) -> None:
        # a closed loop: nobody is listening any more
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(func)

    def relay(event: LoginEvent) -> None:
        if on_event is not None:
            call(lambda: on_event(event))

    def finish() -> None:
        if not finished.done():
            finished.set_result(None)

    def wake(_handle: LoginHandle) -> None:
        call(finish)

    options["on_event"] = relay
    handle = LoginHandle(steps, ui, scopes, **options)
    handle.add_done_callback(wake)
    handle.start()
    try:
        # shielded: cancelling this task must not cancel the future that tells the worker's end
        await asyncio.shield(finished)
    except asyncio.CancelledError:
        handle.cancel()
        await asyncio.to_thread(handle.close_listener)
        await asyncio.wait([finished], timeout=CANCEL_GRACE)
        if not finished.done():  # still checking before the browser: its listener came late
            await asyncio.to_thread(handle.close_listener)
        raise
    return handle.result()
