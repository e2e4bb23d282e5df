"""``mb-oauth``: log in to the MusicBrainz OAuth 2.0 service from a shell.

Settings come from options, then ``MB_OAUTH_*`` environment variables, then the config file
(``$XDG_CONFIG_HOME/mb-oauth/config.toml``); the client secret never has to be typed on the
command line (use ``MB_OAUTH_CLIENT_SECRET`` or the config file).

Exit codes:

    0  ok
    1  other error
    2  usage error (bad option or argument)
    3  not logged in, or the login is no longer valid: run `mb-oauth login`
    4  configuration error (client id or secret rejected, unknown scope, plain HTTP, ...)
    5  temporary failure (network, timeout, HTTP 5xx, loopback port busy): try again later
    6  login cancelled, denied or timed out
    7  token storage unavailable (no keyring backend, locked keyring, unwritable file)
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

import click

from client_kit import errors
from client_kit.config import parse_ports, resolve_settings

if TYPE_CHECKING:
    from client_kit.session import Session

F = TypeVar("F", bound=Callable[..., Any])

EPILOG = """\b
Exit codes:
  0  ok
  1  other error
  2  usage error
  3  not logged in / login required (run `mb-oauth login`)
  4  configuration error (client rejected, unknown scope, ...)
  5  temporary failure (network, 5xx, port busy): try again later
  6  login cancelled, denied or timed out
  7  token storage unavailable

\b
Settings: options, then MB_OAUTH_SERVICE, MB_OAUTH_CLIENT_ID, MB_OAUTH_CLIENT_SECRET,
MB_OAUTH_CA_BUNDLE, MB_OAUTH_STORE, MB_OAUTH_ACCOUNT, MB_OAUTH_PORTS, then the config file
$XDG_CONFIG_HOME/mb-oauth/config.toml (or MB_OAUTH_CONFIG). MB_OAUTH_KEYRING_TIMEOUT: seconds
to wait for the keyring before giving up with exit code 7 (default 5).
MB_OAUTH_BASE_URL (or base_url in the config file): as --base-url.
"""


class Context:
    """Per-invocation state: the settings and a lazily built session."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self._session: Session | None = None
        self._settings: Any = None

    @property
    def settings(self) -> Any:
        if self._settings is None:
            self._settings = resolve_settings(self.options)
        return self._settings

    def session(self) -> Session:
        if self._session is None:
            from client_kit import profiles
            from client_kit.session import Session
            from client_kit.storage import open_store
            from client_kit.ui import Console

            s = self.settings
            extra: dict[str, Any] = {}
            for name in ("ca_bundle", "proxy", "user_agent", "redirect_path", "loopback_host"):
                if s.get(name):
                    extra[name] = s.get(name)
            if s.get("ports"):
                extra["loopback_ports"] = parse_ports(s.get("ports"))
            profile = profiles.resolve(
                s.get("service", "musicbrainz"), base_url=s.get("base_url"), **extra
            )
            _announce_rules(s.get("service"), s.get("base_url"))
            self._session = Session(
                profile,
                client_id=s.get("client_id", ""),
                client_secret=s.get("client_secret"),
                store=open_store(s.get("store")),
                account=s.get("account", "default"),
                ui=Console(use_browser=not self.options.get("no_browser")),
                app_name="mb-oauth",
            )
        return self._session

    def close(self) -> None:
        if self._session is not None:
            self._session.close()


#: commands whose outcome depends on the profile's rules (scope names, ports, oob)
ANNOUNCE_RULES_FOR = ("login", "status")
VISIBLE_OPTION_WARNING = (
    "Warning: --client-secret is visible to other users of this computer (ps, /proc) and "
    "may stay in your shell history; set MB_OAUTH_CLIENT_SECRET or client_secret in the "
    "config file (chmod 600) instead."
)


def _announce_rules(service: str | None, base_url: str | None) -> None:
    """An address without a profile name gets the musicbrainz rules: say so, where it matters."""
    from client_kit.profiles import implied_rules_note

    note = implied_rules_note(service, base_url)
    command = click.get_current_context(silent=True)
    if note and command is not None and command.info_name in ANNOUNCE_RULES_FOR:
        click.echo(f"Note: {note}", err=True)


def handle_errors(func: F) -> F:
    """Turn kit errors into a message on stderr and the documented exit code."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except errors.KitError as exc:
            if kwargs.get("as_json"):
                from client_kit.cli_output import error_json

                click.echo(error_json(exc))  # scripts that asked for JSON get JSON
            click.echo(f"Error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            sys.exit(errors.EXIT_CANCELLED)

    return wrapper  # type: ignore[return-value]


def emit(data: dict[str, Any], as_json: bool, text: Callable[[dict[str, Any]], str]) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=True) if as_json else text(data))


def _when(timestamp: float | None) -> str:
    if timestamp is None:
        return "unknown"
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@click.group(epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--service", help="musicbrainz, metabrainz or a base URL (https://...).")
@click.option(
    "--base-url",
    help="Apply the --service profile at this address (staging, self-hosted): https://...",
)
@click.option("--client-id", help="The application's client id.")
@click.option("--client-secret", help="Better: MB_OAUTH_CLIENT_SECRET or the config file.")
@click.option("--ca-bundle", type=click.Path(dir_okay=False), help="CA file to trust.")
@click.option("--proxy", help="HTTP(S) proxy URL.")
@click.option("--store", help="keyring (default), file, file:DIR or memory.")
@click.option("--account", help="Name for this login when you keep several (default: default).")
@click.option("--debug", is_flag=True, help="Log HTTP traffic to stderr (secrets masked).")
@click.pass_context
def cli(ctx: click.Context, debug: bool, **options: Any) -> None:
    """Log in to the MusicBrainz OAuth 2.0 service and use its tokens."""
    if options.get("client_secret"):
        click.echo(VISIBLE_OPTION_WARNING, err=True)
    if debug:
        import logging

        from client_kit import redaction

        redaction.install()
        # Our own handler, not basicConfig: that does nothing when the root logger already has
        # a handler (an embedding program, a test runner), and --debug must always show.
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        root = logging.getLogger()
        root.addHandler(handler)
        root.setLevel(logging.DEBUG)
        ctx.call_on_close(lambda: root.removeHandler(handler))
    state = Context(options)
    ctx.obj = state
    ctx.call_on_close(state.close)


pass_state = click.make_pass_decorator(Context)


@cli.command()
@click.option("--oob", is_flag=True, help="Out-of-band: paste the code shown by the service.")
@click.option(
    "--port",
    "ports",
    multiple=True,
    help="Fixed loopback port(s), repeatable or comma-separated (first free wins).",
)
@click.option("--no-browser", is_flag=True, help="Print the URL instead of opening a browser.")
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    help="Scope(s) to request, repeatable or comma-separated (default: profile).",
)
@click.option(
    "--timeout",
    type=float,
    default=300.0,
    show_default=True,
    help="Seconds to wait for the browser.",
)
@json_option
@pass_state
@handle_errors
def login(
    state: Context,
    oob: bool,
    ports: tuple[str, ...],
    no_browser: bool,
    scopes: tuple[str, ...],
    timeout: float,
    as_json: bool,
) -> None:
    """Log in through the browser and store the tokens."""
    state.options["no_browser"] = no_browser
    session = state.session()
    wanted = list(scopes) or list(state.settings.get("scopes", ["profile"]))
    from client_kit import preflight
    from client_kit.cli_output import epoch

    preflight.check_store(session)  # the server, client id and secret: in login(check=True)
    tokens = session.login(
        wanted,
        method="oob" if oob else "loopback",
        ports=parse_ports(ports),
        open_browser=not no_browser,
        timeout=timeout,
        check=True,
    )
    who = tokens.username or "unknown user"
    data = {
        "username": tokens.username,
        "scopes": session.profile.short_scopes(tokens.scopes),
        "requested_scopes": session.profile.short_scopes(session.profile.wire_scopes(wanted)),
        "expires_at": epoch(tokens.expires_at),
        "store": session.store.describe(),
    }
    emit(
        data,
        as_json,
        lambda d: f"Logged in as {who} ({', '.join(d['scopes'])}); tokens stored in {d['store']}.",
    )


@cli.command()
@click.option("--local-only", is_flag=True, help="Forget the tokens without revoking them.")
@pass_state
@handle_errors
def logout(state: Context, local_only: bool) -> None:
    """Revoke the login at the service, then forget it here."""
    session = state.session()
    if session.tokens() is None:
        click.echo("Not logged in.", err=True)
        return
    try:
        session.logout(local_only=local_only)
    except errors.TemporaryFailure as exc:
        raise errors.TemporaryFailure(
            f"{exc}. The tokens are kept; retry, or use --local-only to forget them anyway"
        ) from exc
    click.echo("Logged out." if not local_only else "Tokens forgotten (not revoked).", err=True)


@cli.command()
@click.option("--check", is_flag=True, help="Ask the service whether the login still works.")
@json_option
@pass_state
@handle_errors
def status(state: Context, check: bool, as_json: bool) -> None:
    """Who is logged in, with which scopes, until when, stored where."""
    from client_kit.cli_output import status_data, status_text

    session = state.session()
    info = session.status()
    if check and info["logged_in"]:
        info.update(check_login(session))
    emit(status_data(info), as_json, status_text)
    if not info["logged_in"] or info.get("valid") is False:
        sys.exit(errors.EXIT_LOGIN_REQUIRED)


def check_login(session: Session) -> dict[str, Any]:
    """Use the login once (user information, refreshing if refused): does it still work?"""
    try:
        session.userinfo()
    except errors.LoginRequired as exc:
        return {"checked": True, "valid": False, "problem": str(exc)}
    return {"checked": True, "valid": True}


@cli.command()
@pass_state
@handle_errors
def token(state: Context) -> None:
    """Print a valid access token (refreshed if needed), for scripts."""
    click.echo(state.session().access_token())


@cli.command()
@json_option
@pass_state
@handle_errors
def whoami(state: Context, as_json: bool) -> None:
    """Show the user information of the logged-in user."""
    info = state.session().userinfo()

    def text(d: dict[str, Any]) -> str:
        name = d.get("username") or d.get("sub")
        rest = [f"{k}: {v}" for k, v in sorted(d.items()) if k not in ("sub", "username")]
        return "\n".join([f"user: {name}", *rest])

    emit(info, as_json, text)


@cli.command()
@json_option
@pass_state
@handle_errors
def refresh(state: Context, as_json: bool) -> None:
    """Get a new access token now."""
    tokens = state.session().refresh()
    from client_kit.cli_output import epoch

    data = {"expires_at": epoch(tokens.expires_at), "has_refresh_token": bool(tokens.refresh_token)}
    emit(
        data,
        as_json,
        lambda d: f"Refreshed; the new access token expires {_when(d['expires_at'])}.",
    )


@cli.command()
@click.option(
    "--all",
    "revoke_all",
    is_flag=True,
    help="Revoke the refresh token too (the whole grant) and forget it here.",
)
@pass_state
@handle_errors
def revoke(state: Context, revoke_all: bool) -> None:
    """Revoke the access token at the service (the refresh token stays unless --all)."""
    state.session().revoke("all" if revoke_all else "access")
    click.echo("Revoked the whole grant." if revoke_all else "Revoked the access token.", err=True)


def main() -> None:
    """Entry point of ``mb-oauth``."""
    cli(prog_name="mb-oauth")
