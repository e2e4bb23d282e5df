"""`mb-oauth-server`: run the reference server, add users and applications from a shell."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .run_options import run_options, serve_options

if TYPE_CHECKING:
    from .storage import Store

DEFAULT_DATA_DIR = Path("mb-oauth-server-data")

data_dir_option = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_DATA_DIR,
    show_default=True,
    envvar="MB_OAUTH_SERVER_DATA_DIR",
    help="Folder of the database, certificates and CA.",
)


@click.group()
def main() -> None:
    """The bundled MusicBrainz OAuth 2.0 reference server (HTTPS only, SQLite)."""


@main.command()
@data_dir_option
@run_options
def run(data_dir: Path, **given: Any) -> None:
    """Serve the OAuth endpoints and the web pages over HTTPS."""
    from .serve import ServeError, serve
    from .tls import TlsError

    try:
        serve(serve_options(data_dir, **given), announce=lambda line: click.echo(line, err=True))
    except TlsError as error:
        raise click.ClickException(f"certificate problem: {error}") from None
    except ServeError as error:
        raise click.ClickException(str(error)) from None


def _check_data_dir(data_dir: Path) -> Path:
    """The database of an existing data folder: only `run` creates one, so that a mistyped
    --data-dir is an error here and not a new, empty database."""
    from .app import DATABASE_NAME

    creates = f"`mb-oauth-server run --data-dir {data_dir}` creates one"
    if not data_dir.is_dir():
        raise click.ClickException(f"the data folder {data_dir} does not exist ({creates})")
    if not (data_dir / DATABASE_NAME).is_file():
        raise click.ClickException(
            f"{data_dir} is not a data folder (no {DATABASE_NAME}): {creates}"
        )
    return data_dir / DATABASE_NAME


def _open_store(data_dir: Path) -> Store:
    from .storage import Store

    return Store(_check_data_dir(data_dir))


@main.command("add-user")
@click.argument("name")
@data_dir_option
@click.option("--email")
@click.option("--website")
@click.option("--gender")
@click.option("--timezone", default="UTC", show_default=True)
@click.option(
    "--password-stdin",
    is_flag=True,
    help="Read the password from standard input (it is never taken from argv).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def add_user(
    name: str,
    data_dir: Path,
    email: str | None,
    website: str | None,
    gender: str | None,
    timezone: str,
    password_stdin: bool,
    as_json: bool,
) -> None:
    """Create a user account."""
    from .account_rules import AccountError, clean_user_name
    from .accounts import add_user as create
    from .password_prompt import read_password

    _check_data_dir(data_dir)  # before the password prompt: a wrong folder or name fails first
    try:
        clean_user_name(name)
    except AccountError as error:
        raise click.ClickException(str(error)) from None
    password = read_password(password_stdin)
    store = _open_store(data_dir)
    try:
        user = create(
            store,
            name,
            password,
            int(time.time()),
            email=email,
            website=website,
            gender=gender,
            timezone=timezone,
        )
    except AccountError as error:
        raise click.ClickException(str(error)) from None
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps({"id": user.id, "name": user.name}))
    else:
        click.echo(f"Created user {user.name} (id {user.id}).")


@main.command()
@data_dir_option
@click.option(
    "--test-clock", is_flag=True, help="Use the test clock's offset (a --test-clock server)."
)
def purge(data_dir: Path, test_clock: bool) -> None:
    """Remove expired and revoked rows now (a running server also does it every minute)."""
    import sqlite3

    from .purge import purge_once, purge_time

    store = _open_store(data_dir)  # brings the schema up to date
    store.close()
    db = sqlite3.connect(data_dir / "server.sqlite3", isolation_level=None)
    try:
        db.execute("PRAGMA busy_timeout = 10000")
        removed = purge_once(db, purge_time(db, test_clock))
    finally:
        db.close()
    click.echo("Removed " + ", ".join(f"{n} {table}" for table, n in removed.items()) + ".")


@main.command("add-app")
@data_dir_option
@click.option("--owner", required=True, help="User name of the application's owner.")
@click.option("--name", required=True)
@click.option("--type", "app_type", type=click.Choice(["confidential", "public"]), required=True)
@click.option("--redirect-uri", required=True, help="The registered redirect URI.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def add_app(
    data_dir: Path, owner: str, name: str, app_type: str, redirect_uri: str, as_json: bool
) -> None:
    """Register an application; prints its Client ID and Client Secret (shown once)."""
    from .accounts import AccountError, add_application, user_by_name

    store = _open_store(data_dir)
    try:
        user = user_by_name(store, owner)
        if user is None:
            raise click.ClickException(f"there is no user {owner!r}; add it with add-user")
        created = add_application(store, user, name, app_type, redirect_uri, int(time.time()))
    except AccountError as error:
        raise click.ClickException(str(error)) from None
    finally:
        store.close()
    app = created.application
    result = {
        "client_id": app.client_id,
        "client_secret": created.client_secret,
        "name": app.name,
        "type": app.type,
        "redirect_uri": app.redirect_uri,
    }
    if as_json:
        click.echo(json.dumps(result))
    else:
        for label, value in zip(_LABELS, result.values(), strict=True):
            click.echo(f"{label}: {value}")


_LABELS = ("Client ID", "Client Secret", "Name", "Type", "Redirect URI")  # result's order
