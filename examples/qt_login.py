"""A Qt (PySide6) application that logs in to the MusicBrainz OAuth 2.0 service without freezing.

The login runs in the kit's worker thread (``session.start_login``), which first checks the
service and the application (a wrong client id is reported at once, before any browser).
Its events reach the window the Qt way: ``on_event`` and the done callback run on the
worker thread, so they only emit signals, and Qt delivers those to slots on the GUI thread
(a queued connection). The window opens the browser itself, on ``event.browser_url`` (the
loopback listener's launcher: the authorization URL, with its ``state``, stays out of the
browser's command line), shows the URL and a countdown, accepts a pasted URL or code, and
can cancel. Nothing here parses console prose: every step is a ``LoginEvent``.

    pip install PySide6
    python examples/qt_login.py --service https://127.0.0.1:8443 --ca-bundle ca.pem \\
        --client-id ID            # the secret from MB_OAUTH_CLIENT_SECRET, or --broker-url

Each event is also printed to stdout as one JSON line (for scripts and the headless test,
which runs it with QT_QPA_PLATFORM=offscreen).
"""

from __future__ import annotations

import argparse
import sys

from gui_login import open_session, parse, report, report_event, status_text
from PySide6.QtCore import QObject, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QApplication,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from client_kit import LoginEvent, LoginHandle, Session


class LoginSignals(QObject):
    """Carries the kit's callbacks from its worker thread to the GUI thread."""

    event = Signal(object)  # a LoginEvent
    finished = Signal()


class LoginWindow(QWidget):
    """A status line, the URL, a field for a pasted URL or code, Log in / Cancel.

    Every field has a label (its buddy, for screen readers). Cancel and the paste field work
    only while a login runs; when it ends (logged in, failed or cancelled) the URL is
    cleared: it cannot be used again.
    """

    def __init__(self, session: Session, args: argparse.Namespace) -> None:
        super().__init__()
        self.session = session
        self.args = args
        self.handle: LoginHandle | None = None
        self.signals = LoginSignals()
        self.signals.event.connect(self.show_event)
        self.signals.finished.connect(self.finished)
        self.setWindowTitle("MusicBrainz login")
        grid = QGridLayout(self)
        self.status = QLabel("Not logged in.")
        grid.addWidget(self.status, 0, 0, 1, 3)
        self.url = self._field(grid, 1, "Open this URL in a browser to log in:")
        self.url.setReadOnly(True)
        self.paste = self._field(grid, 3, "Or paste the URL the browser ended on (or the code):")
        self.submit_button = QPushButton("Use it")
        self.submit_button.clicked.connect(self.submit)
        grid.addWidget(self.submit_button, 4, 2)
        self.login_button = QPushButton("Log in")
        self.login_button.clicked.connect(self.start)
        grid.addWidget(self.login_button, 5, 0)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        grid.addWidget(self.cancel_button, 5, 1)
        self.running(False)

    def _field(self, grid: QGridLayout, row: int, label: str) -> QLineEdit:
        """An entry under its label (the label names it for screen readers too)."""
        caption = QLabel(label)
        entry = QLineEdit()
        caption.setBuddy(entry)
        entry.setAccessibleName(label.rstrip(":"))
        grid.addWidget(caption, row, 0, 1, 3)
        grid.addWidget(entry, row + 1, 0, 1, 2)
        return entry

    def running(self, active: bool) -> None:
        """Log in while idle; Cancel, the paste field and its button while a login runs."""
        self.login_button.setEnabled(not active)
        for widget in (self.cancel_button, self.paste, self.submit_button):
            widget.setEnabled(active)
        if not active:
            self.url.clear()
            self.paste.clear()

    # -- buttons ------------------------------------------------------------------------

    def start(self) -> None:
        self.running(True)
        self.status.setText("Checking the service and the application...")
        self.handle = self.session.start_login(
            self.args.scope,
            open_browser=False,  # the window opens it: see show_event
            timeout=self.args.timeout,
            on_event=self.signals.event.emit,  # on the worker thread: only a signal
        )
        self.handle.add_done_callback(lambda _handle: self.signals.finished.emit())

    def submit(self) -> None:
        if self.handle is not None and self.paste.text().strip():
            self.handle.submit(self.paste.text())
            self.paste.clear()

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()

    # -- events, on Qt's own thread -----------------------------------------------------

    def show_event(self, event: LoginEvent) -> None:
        report_event(event)
        if event.kind == "authorization_url":
            self.url.setText(event.url or "")
            if not self.args.no_browser and event.browser_url:
                QDesktopServices.openUrl(QUrl(event.browser_url))
        if (text := status_text(event)) is not None:
            self.status.setText(text)

    def finished(self) -> None:
        """The login ended; its last events were delivered before this (same thread, in
        order)."""
        self.running(False)
        if self.args.exit_when_done:
            report(self.shown())
            QTimer.singleShot(0, QApplication.quit)

    def shown(self) -> dict[str, object]:
        """What the window shows now (for the headless test): texts, labels, states."""
        labels = [
            label.text()
            for label in self.findChildren(QLabel)
            if label is not self.status and label.buddy() is not None
        ]
        return {
            "kind": "shown",
            "text": self.status.text(),
            "url": self.url.text(),
            "labels": labels,
            "enabled": {
                "log in": self.login_button.isEnabled(),
                "cancel": self.cancel_button.isEnabled(),
                "paste": self.paste.isEnabled(),
                "use it": self.submit_button.isEnabled(),
            },
        }


def main(argv: list[str] | None = None) -> None:
    args = parse(sys.argv[1:] if argv is None else argv, __doc__.split("\n")[0])
    app = QApplication(sys.argv[:1])
    session = open_session(args, app_name="the Qt example")
    window = LoginWindow(session, args)
    window.show()
    if args.start:
        QTimer.singleShot(0, window.start)
    app.exec()
    session.close()


if __name__ == "__main__":
    main()
