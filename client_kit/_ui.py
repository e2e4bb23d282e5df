"""How the kit talks to the person logging in: messages and prompts on stderr, the browser.

Replace :class:`Console` to embed the kit in a GUI; tests pass a scripted one.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from client_kit._flow import LoginEvent


class UserInterface(Protocol):
    """What the kit needs from the person's side. Optional extras: ``event(LoginEvent)``
    receives each step of a login as data; ``concurrent_read = True`` allows ``read_line``
    in a thread of the kit's own (only the console says so)."""

    def show(self, message: str) -> None:
        """Tell the user something (never a secret)."""

    def open_browser(self, url: str) -> bool:
        """Open ``url`` in the user's browser; False when there is none."""

    def read_line(self, prompt: str) -> str | None:
        """Ask for one line (a pasted code or URL); None at end of input."""


def browser_available() -> bool:
    """False over SSH, in containers and on Linux without a display."""
    if os.environ.get("MB_OAUTH_NO_BROWSER"):
        return False
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            return False
    if os.environ.get("SSH_CONNECTION") and not os.environ.get("DISPLAY"):
        return False
    import webbrowser

    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


class Console:
    """stderr for messages and prompts (stdout stays clean for scripts), stdin for input.

    On a terminal it also counts down while waiting for the browser; on a pipe it prints
    nothing more than the messages.
    """

    #: the kit may read a pasted URL in a thread of its own while the listener waits
    concurrent_read = True

    def __init__(self, use_browser: bool = True) -> None:
        self.use_browser = use_browser
        self._counting = False

    def show(self, message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    def open_browser(self, url: str) -> bool:
        if not (self.use_browser and browser_available()):
            return False
        import webbrowser

        try:
            return bool(webbrowser.open(url, new=1, autoraise=True))
        except webbrowser.Error:
            return False

    def event(self, event: LoginEvent) -> None:
        """A countdown on a terminal while waiting for the browser (not while reading)."""
        if event.kind == "waiting":
            self._counting = not event.accepts_paste and sys.stderr.isatty()
        elif event.kind == "tick" and self._counting and event.remaining is not None:
            left = int(event.remaining)
            sys.stderr.write(f"\r  {left // 60}:{left % 60:02d} left  ")
            sys.stderr.flush()
        elif self._counting:
            sys.stderr.write("\r" + " " * 20 + "\r")
            sys.stderr.flush()
            self._counting = False

    def read_line(self, prompt: str) -> str | None:
        print(prompt, end="", file=sys.stderr, flush=True)
        line = sys.stdin.readline()
        return line.strip() if line else None
