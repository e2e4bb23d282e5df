"""The interactive desktop login: open the browser, tell the user, wait (or read a paste).

What ``Session.login`` runs: the login's steps (:class:`~client_kit._twostep.LoginSteps`)
shown to a person through a :class:`~client_kit._ui.UserInterface`: the
URL (opened in the browser when there is one), how long it waits, the messages of a rejected
paste or of scopes granted otherwise; on a console it also reads a pasted redirect URL in a
thread while the loopback listener waits (only an interface that says ``concurrent_read``).
GUIs do not use this: they run :class:`~client_kit._handle.LoginHandle` and show the events.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypedDict

from client_kit._authorization import parse_pasted
from client_kit._errors import KitError, LoginCancelled
from client_kit._flow import (
    FAILED,
    INPUT_REJECTED,
    PASTE_ATTEMPTS,
    SCOPES_DIFFER,
    WAITING,
    Answer,
    Answers,
    Emit,
    LoginEvent,
    NextInput,
    authorization_url_event,
    queue_input,
)
from client_kit._twostep import DEFAULT_TIMEOUT, LoginMethod, LoginSteps

if TYPE_CHECKING:
    from client_kit._authorization import AuthorizationRequest
    from client_kit._pages import LoopbackPages
    from client_kit._tokens import TokenSet
    from client_kit._ui import UserInterface

#: events whose message the person is shown as it happens (the others are the console's own)
SHOWN = (INPUT_REJECTED, SCOPES_DIFFER)


class LoginOptions(TypedDict, total=False):
    """The keyword options of ``Session.login`` (defaults: :meth:`DesktopLogin.login`)."""

    method: LoginMethod
    ports: Sequence[int]
    redirect_path: str | None
    open_browser: bool
    timeout: float
    use_pkce: bool
    fetch_user: bool
    check: bool
    pages: LoopbackPages | None
    on_event: Emit | None


class DesktopLogin:
    """Blocking logins through ``ui``: browser, messages, the answer, the tokens."""

    def __init__(self, steps: LoginSteps, ui: UserInterface) -> None:
        self.steps = steps
        self.ui = ui

    def emitter(self, on_event: Emit | None = None) -> Emit:
        """Events to the interface (its optional ``event``), to ``on_event``, and the
        messages the person must read now to the interface's ``show``."""
        sinks = [sink for sink in (getattr(self.ui, "event", None), on_event) if sink]

        def emit(event: LoginEvent) -> None:
            if event.kind in SHOWN:
                self.ui.show(event.message)
            for sink in sinks:
                sink(event)

        return emit

    def login(
        self,
        scopes: Sequence[str],
        *,
        method: LoginMethod = "loopback",
        ports: Sequence[int] = (),
        redirect_path: str | None = None,
        open_browser: bool = True,
        timeout: float = DEFAULT_TIMEOUT,
        use_pkce: bool = True,
        fetch_user: bool = True,
        check: bool = True,
        pages: LoopbackPages | None = None,
        on_event: Emit | None = None,
    ) -> TokenSet:
        """``Session.login``: begin, check (``check``), announce, wait, exchange; a failure
        or Ctrl-C is reported as a ``failed`` event and leaves stored tokens as they were."""
        emit = self.emitter(on_event)
        steps = self.steps
        request: AuthorizationRequest | None = None
        try:
            request = steps.begin(
                scopes,
                method=method,
                ports=ports,
                redirect_path=redirect_path,
                use_pkce=use_pkce,
                pages=pages,
            )
            if check:
                steps.check(request)
            return self.run(
                request,
                open_browser=open_browser,
                timeout=timeout,
                emit=emit,
                fetch_user=fetch_user,
            )
        except KeyboardInterrupt:
            emit(LoginEvent(FAILED, "Login interrupted.", reason="login interrupted"))
            raise LoginCancelled("login interrupted") from None
        except KitError as exc:
            emit(LoginEvent(FAILED, f"Login failed: {exc}", reason=str(exc), error=exc))
            raise
        finally:
            if request is not None:
                steps.cancel(request)

    def run(
        self,
        request: AuthorizationRequest,
        *,
        open_browser: bool,
        timeout: float,
        emit: Emit,
        fetch_user: bool = True,
    ) -> TokenSet:
        """Announce the begun ``request``, wait for its answer, exchange it."""
        steps = self.steps
        next_input = self._announce(steps.answers(request), request, open_browser, timeout, emit)
        return steps.finish(request, next_input, timeout=timeout, emit=emit, fetch_user=fetch_user)

    def _announce(
        self,
        answers: Answers | None,
        request: AuthorizationRequest,
        open_browser: bool,
        timeout: float,
        emit: Emit,
    ) -> NextInput:
        """Open the browser, tell the user what happens now; the source of the answer."""
        opened = open_browser and self.ui.open_browser(request.browser_url)
        paste = answers is not None and not opened and reads_concurrently(self.ui)
        self._show_url(request.url, opened, paste=paste)
        emit(authorization_url_event(request))
        if answers is None:
            emit(LoginEvent(WAITING, "Waiting for the code.", accepts_paste=True))
            return self._read_code
        if paste:
            start_paste_reader(self.ui, answers)
        self.ui.show(
            f"Waiting up to {describe_seconds(timeout)} for the login to finish in the "
            "browser (Ctrl-C to cancel)."
        )
        emit(
            LoginEvent(WAITING, "Waiting for the browser.", remaining=timeout, accepts_paste=paste)
        )
        return queue_input(answers, emit)

    def _read_code(self, remaining: float) -> Answer:
        """The out-of-band code, read in the calling thread."""
        line = self.ui.read_line("Paste the code shown after you approve (or that page's URL): ")
        if not line:
            raise LoginCancelled("no code was entered; login cancelled")
        return "paste", parse_pasted(line)

    def _show_url(self, url: str, opened: bool, *, paste: bool) -> None:
        if opened:
            self.ui.show(f"Your browser has been opened to log in. If not, open this URL:\n{url}")
        else:
            self.ui.show(f"Open this URL in a browser to log in:\n{url}")
        if paste:
            self.ui.show(
                "Waiting for the browser to come back. Or, if it cannot reach this "
                "machine, paste the URL it ended on here and press Enter:"
            )


def reads_concurrently(ui: UserInterface) -> bool:
    """Whether ``ui.read_line`` may run in a thread of the kit's own (the console's may).

    Other interfaces are never read from behind the application's back: a GUI passes a
    pasted URL to ``LoginHandle.submit`` or ``complete_login(redirected_url=...)``.
    """
    return bool(getattr(ui, "concurrent_read", False))


def describe_seconds(seconds: float) -> str:
    """``300`` -> ``5 min``, ``90`` -> ``1 min 30 s``."""
    minutes, rest = divmod(round(seconds), 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min" + (f" {rest} s" if rest else "")


def start_paste_reader(ui: UserInterface, answers: Answers) -> None:
    """Read a pasted redirect URL in the background; the listener may win the race."""

    def read() -> None:
        for _ in range(PASTE_ATTEMPTS):  # a mistyped paste may be followed by another
            try:
                line = ui.read_line("> ")
            except (OSError, ValueError, EOFError):
                return
            if not line:
                return
            answers.put(("paste", parse_pasted(line)))

    threading.Thread(target=read, name="mb-oauth-paste", daemon=True).start()
