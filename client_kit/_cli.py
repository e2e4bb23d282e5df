"""``mb-oauth``: log in to the MusicBrainz OAuth 2.0 service from a shell.

Settings come from options, then ``MB_OAUTH_*`` environment variables, then the config file
(``$XDG_CONFIG_HOME/mb-oauth/config.toml``); the client secret never has to be typed on the
command line (use ``MB_OAUTH_CLIENT_SECRET`` or the config file).

Exit codes: ``mb-oauth --help`` (the table of :mod:`client_kit._cli_exit`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from client_kit import _errors
from client_kit._cli_context import (
    VISIBLE_OPTION_WARNING,
    Context,
    emit,
    handle_errors,
    json_option,
    pass_state,
)
from client_kit._cli_exit import EXIT_LOGIN_REQUIRED, help_text
from client_kit._config import parse_ports

if TYPE_CHECKING:
    from client_kit._cli_output import Check
    from client_kit._session import Session

EPILOG = (
    help_text()
    + """

\b
Settings: options, then MB_OAUTH_SERVICE, MB_OAUTH_CLIENT_ID, MB_OAUTH_CLIENT_SECRET,
MB_OAUTH_CA_BUNDLE, MB_OAUTH_STORE, MB_OAUTH_ACCOUNT, MB_OAUTH_PORTS, then the config file
$XDG_CONFIG_HOME/mb-oauth/config.toml (or MB_OAUTH_CONFIG). MB_OAUTH_KEYRING_TIMEOUT: seconds
to wait for the keyring before giving up with exit code 7 (default 5).
MB_OAUTH_BASE_URL (or base_url in the config file): as --base-url.
"""
)


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
def cli(ctx: click.Context, /, debug: bool, **options: object) -> None:
    """Log in to the MusicBrainz OAuth 2.0 service and use its tokens."""
    if options.get("client_secret"):
        click.echo(VISIBLE_OPTION_WARNING, err=True)
    if debug:
        import logging

        from client_kit import _logs

        _logs.install()
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
    wanted = list(scopes) or state.settings.words("scopes", ["profile"])
    from client_kit._cli_output import epoch, login_text

    # before the browser, the library's checks (check=True, the default): the store, the
    # authorization page (client id, redirect URI, scopes) and the client secret
    tokens = session.login(
        wanted,
        method="oob" if oob else "loopback",
        ports=parse_ports(ports),
        open_browser=not no_browser,
        timeout=timeout,
    )
    data = {
        "username": tokens.username,
        "scopes": session.profile.short_scopes(tokens.scopes),
        "requested_scopes": session.profile.short_scopes(session.profile.wire_scopes(wanted)),
        "expires_at": epoch(tokens.expires_at),
        "store": session.store.describe(),
    }
    emit(data, as_json, login_text)


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
    except _errors.TemporaryFailure as exc:
        raise _errors.TemporaryFailure(
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
    from client_kit._cli_output import status_data, status_text

    session = state.session()
    info = session.status()
    checked = check_login(session) if check and info.logged_in else None
    emit(status_data(info, checked), as_json, status_text)
    if not info.logged_in or (checked is not None and not checked.valid):
        sys.exit(EXIT_LOGIN_REQUIRED)


def check_login(session: Session) -> Check:
    """Use the login once (user information, refreshing if refused): does it still work?"""
    from client_kit._cli_output import Check

    try:
        ask_service(session)
    except _errors.LoginRequired as exc:
        return Check(valid=False, problem=str(exc))
    return Check(valid=True)


def ask_service(session: Session) -> None:
    """Ask the user-information endpoint with the access token, which is refreshed first if
    it expires and once more if the service refuses it; raise LoginRequired when the service
    no longer accepts the login. A token without the scope for user information is good
    (RFC 6750 ``insufficient_scope``)."""
    endpoints = session.endpoints
    response = session.connections.send(endpoints.userinfo_request(), auth=session.auth())
    challenge = response.headers.get("www-authenticate", "") + response.text
    if response.status_code == 403 and "insufficient_scope" in challenge:
        return
    endpoints.userinfo_response(response)


@cli.command()
@click.option(
    "--check",
    is_flag=True,
    help="Ask the service first (user information); refresh if it refuses the token; exit 3 "
    "if the login is gone.",
)
@pass_state
@handle_errors
def token(state: Context, check: bool) -> None:
    """Print a valid access token, for scripts.

    By default only the local expiry is checked (the token is refreshed shortly before it
    expires), without asking the service: a token the service has revoked is still printed
    until it would have expired. With --check the service is asked first.
    """
    session = state.session()
    if check:
        ask_service(session)
    click.echo(session.access_token())


@cli.command()
@json_option
@pass_state
@handle_errors
def whoami(state: Context, as_json: bool) -> None:
    """Show the user information of the logged-in user."""
    from client_kit._cli_output import userinfo_text

    emit(state.session().userinfo(), as_json, userinfo_text)


@cli.command()
@json_option
@pass_state
@handle_errors
def refresh(state: Context, as_json: bool) -> None:
    """Get a new access token now."""
    from client_kit._cli_output import epoch, refresh_text

    tokens = state.session().refresh()
    data = {"expires_at": epoch(tokens.expires_at), "has_refresh_token": bool(tokens.refresh_token)}
    emit(data, as_json, refresh_text)


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
