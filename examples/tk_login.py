"""A Tkinter application that logs in to the MusicBrainz OAuth 2.0 service without freezing.

The login runs in the kit's worker thread (``session.start_login``), which first checks the
service and the application (a wrong client id is reported at once, before any browser);
the window polls its events from a Tk timer, shows the URL and a countdown, accepts a pasted
URL or code, and can cancel. Nothing here parses console prose: every step is a
``LoginEvent``.

    python examples/tk_login.py --service https://127.0.0.1:8443 --ca-bundle ca.pem \\
        --client-id ID            # the secret from MB_OAUTH_CLIENT_SECRET, or --broker-url

Each event is also printed to stdout as one JSON line (for scripts and the headless test).
"""

from __future__ import annotations

import argparse
import sys
import tkinter as tk
from tkinter import ttk

from gui_login import open_session, parse, report, report_event, status_text

from client_kit import LoginEvent, LoginHandle, Session

POLL_MS = 100


class LoginWindow:
    """A status line, the URL, a field for a pasted URL or code, Log in / Cancel.

    Every field has a label. Cancel and the paste field work only while a login runs; when
    it ends (logged in, failed or cancelled) the URL is cleared: it cannot be used again.
    """

    def __init__(self, root: tk.Tk, session: Session, args: argparse.Namespace) -> None:
        self.root = root
        self.session = session
        self.args = args
        self.handle: LoginHandle | None = None
        root.title("MusicBrainz login")
        frame = ttk.Frame(root, padding=12)
        frame.grid(sticky="nsew")
        self.status = ttk.Label(frame, text="Not logged in.", width=60)
        self.status.grid(row=0, column=0, columnspan=3, sticky="w")
        self.url = self._field(frame, 1, "Open this URL in a browser to log in:", width=60)
        self.paste = self._field(
            frame, 3, "Or paste the URL the browser ended on (or the code):", width=40
        )
        self.submit_button = ttk.Button(frame, text="Use it", command=self.submit)
        self.submit_button.grid(row=4, column=2, sticky="w")
        self.login_button = ttk.Button(frame, text="Log in", command=self.start)
        self.login_button.grid(row=5, column=0, sticky="w", pady=8)
        self.cancel_button = ttk.Button(frame, text="Cancel", command=self.cancel)
        self.cancel_button.grid(row=5, column=1, sticky="w")
        self.running(False)

    @staticmethod
    def _field(frame: ttk.Frame, row: int, label: str, width: int) -> ttk.Entry:
        """An entry under its label (the label names it for screen readers too)."""
        ttk.Label(frame, text=label).grid(row=row, column=0, columnspan=3, sticky="w")
        entry = ttk.Entry(frame, width=width)
        entry.grid(row=row + 1, column=0, columnspan=2, sticky="we", pady=(0, 4))
        return entry

    def running(self, active: bool) -> None:
        """Log in while idle; Cancel, the paste field and its button while a login runs."""
        self.login_button.state(["disabled"] if active else ["!disabled"])
        for widget in (self.cancel_button, self.paste, self.submit_button):
            widget.state(["!disabled"] if active else ["disabled"])
        if not active:
            self.url.delete(0, tk.END)
            self.paste.delete(0, tk.END)

    # -- buttons ------------------------------------------------------------------------

    def start(self) -> None:
        self.running(True)
        self.status.config(text="Checking the service and the application...")
        self.handle = self.session.start_login(
            self.args.scope, open_browser=not self.args.no_browser, timeout=self.args.timeout
        )
        self.root.after(POLL_MS, self.pump)

    def submit(self) -> None:
        if self.handle is not None and self.paste.get().strip():
            self.handle.submit(self.paste.get())
            self.paste.delete(0, tk.END)

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()

    # -- events, on Tk's own thread -----------------------------------------------------

    def pump(self) -> None:
        assert self.handle is not None
        for event in self.handle.poll():
            self.show(event)
        if not self.handle.done or not self.handle.events.empty():
            self.root.after(POLL_MS, self.pump)
            return
        self.running(False)
        if self.args.exit_when_done:
            self.root.update_idletasks()
            report(self.shown())
            self.root.after(POLL_MS, self.root.destroy)

    def show(self, event: LoginEvent) -> None:
        report_event(event)
        if event.kind == "authorization_url":
            self.url.delete(0, tk.END)
            self.url.insert(0, event.url or "")
        if (text := status_text(event)) is not None:
            self.status.config(text=text)

    def shown(self) -> dict[str, object]:
        """What the window shows now (for the headless test): texts, labels, states."""
        labels = [
            widget.cget("text")
            for widget in self.status.master.winfo_children()
            if isinstance(widget, ttk.Label) and widget is not self.status
        ]
        return {
            "kind": "shown",
            "text": self.status.cget("text"),
            "url": self.url.get(),
            "labels": labels,
            "enabled": {
                name: not widget.instate(["disabled"])
                for name, widget in (
                    ("log in", self.login_button),
                    ("cancel", self.cancel_button),
                    ("paste", self.paste),
                    ("use it", self.submit_button),
                )
            },
        }


def main(argv: list[str] | None = None) -> None:
    args = parse(sys.argv[1:] if argv is None else argv, __doc__.split("\n")[0])
    session = open_session(args, app_name="the Tk example")
    root = tk.Tk()
    window = LoginWindow(root, session, args)
    if args.start:
        root.after(0, window.start)
    root.mainloop()
    session.close()


if __name__ == "__main__":
    main()
