"""The plumbing every ``mb-oauth`` command shares: its settings, its session, and how a kit
error becomes a message (with the command line's advice) and its exit code
(:mod:`client_kit._cli_exit`)."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import click

from client_kit import _errors
from client_kit._cli_exit import EXIT_CANCELLED, exit_code
from client_kit._cli_hints import explain, implied_rules_note, rules_may_explain
from client_kit._cli_output import Data
from client_kit._config import Settings, parse_ports, resolve_settings
from client_kit._safe_text import clean

if TYPE_CHECKING:
    from client_kit._session import Session
    from client_kit.profiles import ProfileSettings

P = ParamSpec("P")
#: the most characters of one error message (the service's part is cut shorter before)
MESSAGE_LIMIT = 2000
R = TypeVar("R")


class Context:
    """Per-invocation state: the settings and a lazily built session."""

    def __init__(self, options: dict[str, object]) -> None:
        self.options = options
        self._session: Session | None = None
        self._settings: Settings | None = None
        #: whose rules apply, when an address was given without a profile name (or None)
        self.rules_note: str | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = resolve_settings(self.options)
        return self._settings

    def session(self) -> Session:
        if self._session is None:
            from client_kit import profiles
            from client_kit._config import open_store
            from client_kit._session import Session
            from client_kit._ui import Console

            s = self.settings
            service = s.text("service", "musicbrainz") or "musicbrainz"
            profile = profiles.resolve(service, s.text("base_url"), **profile_settings(s))
            self.rules_note = implied_rules_note(s.text("service"), s.text("base_url"))
            self._session = Session(
                profile,
                client_id=s.text("client_id", "") or "",
                client_secret=s.text("client_secret"),
                store=open_store(s.text("store")),
                account=s.text("account", "default") or "default",
                ui=Console(use_browser=not self.options.get("no_browser")),
                app_name="mb-oauth",
            )
        return self._session

    def close(self) -> None:
        if self._session is not None:
            self._session.close()


def profile_settings(s: Settings) -> ProfileSettings:
    """The profile fields that the settings give (the others keep the profile's defaults)."""
    given: ProfileSettings = {}
    if ca_bundle := s.text("ca_bundle"):
        given["ca_bundle"] = ca_bundle
    if proxy := s.text("proxy"):
        given["proxy"] = proxy
    if user_agent := s.text("user_agent"):
        given["user_agent"] = user_agent
    if redirect_path := s.text("redirect_path"):
        given["redirect_path"] = redirect_path
    if loopback_host := s.text("loopback_host"):
        given["loopback_host"] = loopback_host
    if s.get("ports"):
        given["loopback_ports"] = parse_ports(s.get("ports"))
    return given


VISIBLE_OPTION_WARNING = (
    "Warning: --client-secret is visible to other users of this computer (ps, /proc) and "
    "may stay in your shell history; set MB_OAUTH_CLIENT_SECRET or client_secret in the "
    "config file (chmod 600) instead."
)


def handle_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn kit errors into a message (with the command line's advice) on stderr and the
    documented exit code."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except _errors.KitError as exc:
            # the service's words in it are clean already; this pass guards every message
            message = clean(explain(exc), MESSAGE_LIMIT)
            if kwargs.get("as_json"):
                from client_kit._cli_output import error_json

                click.echo(error_json(exc, message))  # scripts that asked for JSON get JSON
            click.echo(f"Error: {message}", err=True)
            _note_the_rules(exc)
            sys.exit(exit_code(exc))
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            sys.exit(EXIT_CANCELLED)

    return wrapper


def _note_the_rules(exc: _errors.KitError) -> None:
    """An address without a profile name gets the musicbrainz rules: say so after an error
    those rules may explain (scope names, ports, out-of-band, the service's answers), and
    only then: a working setup is not told on every command."""
    context = click.get_current_context(silent=True)
    state = context.find_object(Context) if context is not None else None
    if state is not None and state.rules_note and rules_may_explain(exc):
        click.echo(f"Note: {state.rules_note}", err=True)


def emit(data: Data, as_json: bool, text: Callable[[Data], str]) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=True) if as_json else text(data))


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
pass_state = click.make_pass_decorator(Context)
