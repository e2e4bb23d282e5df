"""What the GUI examples share: their command line, the session it describes, and what the
window's status line says for each step of a login.

Only the kit's public names are used (``from client_kit import ...``), as in an application.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from client_kit import (
    FileStore,
    KeyringStore,
    LoginEvent,
    MemoryStore,
    Session,
    TokenStore,
    profiles,
)


def parse(argv: list[str], description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--service", default="musicbrainz", help="name or https:// base URL")
    parser.add_argument(
        "--client-id",
        default=os.environ.get("MB_OAUTH_CLIENT_ID", ""),
        help="or MB_OAUTH_CLIENT_ID; an id that starts with '-' is given as --client-id=ID",
    )
    parser.add_argument("--broker-url", help="the app's token broker (no secret here)")
    parser.add_argument("--ca-bundle", help="the CA file that signed the service's certificate")
    parser.add_argument("--broker-ca-bundle", help="the one that signed the broker's, if another")
    parser.add_argument("--store", default="keyring", help="keyring, file:DIR or memory")
    parser.add_argument("--scope", action="append", default=None)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--start", action="store_true", help="press Log in at once")
    parser.add_argument("--exit-when-done", action="store_true")
    args = parser.parse_args(argv)
    args.scope = args.scope or ["profile"]
    return args


def open_session(args: argparse.Namespace, app_name: str) -> Session:
    """The session the options describe; the client secret from MB_OAUTH_CLIENT_SECRET."""
    return Session(
        profiles.resolve(args.service, ca_bundle=args.ca_bundle),
        args.client_id,
        None if args.broker_url else os.environ.get("MB_OAUTH_CLIENT_SECRET"),
        store=token_store(args.store),
        app_name=app_name,
        broker_url=args.broker_url,
        broker_ca_bundle=args.broker_ca_bundle,
    )


def token_store(spec: str) -> TokenStore:
    """``keyring``, ``memory`` or ``file:DIR``."""
    if spec == "memory":
        return MemoryStore()
    if spec.startswith("file:"):
        return FileStore(Path(spec.removeprefix("file:")).expanduser())
    if spec == "keyring":
        return KeyringStore()
    raise SystemExit(f"unknown store {spec!r}: use keyring, memory or file:DIR")


def status_text(event: LoginEvent) -> str | None:
    """The status line for ``event`` (None: it changes nothing there)."""
    if event.kind == "authorization_url":
        return "Log in in your browser (or paste the URL it ends on)."
    if event.kind == "tick" and event.remaining is not None:
        left = int(event.remaining)
        return f"Waiting for the browser: {left // 60}:{left % 60:02d} left"
    if event.kind in ("input_rejected", "scopes_differ"):
        return event.message
    if event.kind == "failed":
        return f"Login failed: {event.reason}"
    if event.kind == "done":
        return f"Logged in as {event.username}"
    return None


def report(data: dict[str, object]) -> None:
    """One JSON line on stdout (for scripts and the headless tests)."""
    print(json.dumps(data), flush=True)


def report_event(event: LoginEvent) -> None:
    if event.kind != "tick":
        fields = ("kind", "url", "browser_url", "message")
        report({name: getattr(event, name) for name in fields})
