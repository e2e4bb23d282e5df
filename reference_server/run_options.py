"""The options of `mb-oauth-server run` (cli.py) and the server settings they make."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlsplit

import click

from .guard import GuardPolicy
from .limits import Limits

if TYPE_CHECKING:
    from .serve import ServeOptions

Command = TypeVar("Command", bound=Callable[..., None])


def _seconds(name: str, default: float, help_text: str) -> Callable[[Command], Command]:
    """A timeout option: seconds, at least 0.1."""
    return click.option(
        name, default=default, show_default=True, type=click.FloatRange(min=0.1), help=help_text
    )


_OPTIONS = [
    click.option("--host", default="127.0.0.1", show_default=True),
    click.option(
        "--port",
        default=8443,
        show_default=True,
        type=click.IntRange(0, 65535),
        help="0 picks a free port.",
    ),
    click.option(
        "--cert",
        type=click.Path(dir_okay=False, exists=True, path_type=Path),
        help="Server certificate (PEM); default: one made by a local CA.",
    ),
    click.option(
        "--key",
        type=click.Path(dir_okay=False, exists=True, path_type=Path),
        help="Private key of --cert (PEM).",
    ),
    click.option(
        "--test-clock",
        is_flag=True,
        help="Enable POST /_test/clock, which moves the server's clock forward.",
    ),
    click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64)),
    click.option(
        "--guard-free",
        default=GuardPolicy.free,
        show_default=True,
        type=click.IntRange(1),
        help="Failed guesses (passwords, client secrets, codes) per address and name before "
        "the guard makes that address wait; a throwaway test server may allow many.",
    ),
    click.option(
        "--public-url",
        help="The URL users reach the server at (userinfo's profile links); "
        "default: the URL it serves. Never taken from the Host header.",
    ),
    _seconds(
        "--handshake-timeout",
        Limits.handshake_timeout,
        "Seconds a client has to complete its TLS handshake.",
    ),
    _seconds(
        "--header-timeout", Limits.header_timeout, "Seconds a client has to send a request head."
    ),
    _seconds("--body-timeout", Limits.body_timeout, "Seconds a client has to send a request body."),
    _seconds(
        "--idle-timeout", Limits.idle_timeout, "Seconds an idle keep-alive connection stays open."
    ),
    click.option(
        "--max-connections",
        type=click.IntRange(1),
        help=f"Open connections per worker, TLS handshakes included; past it the longest-waiting "
        f"idle one is closed. Default: {Limits.max_connections}, or fewer if the file descriptor "
        "limit is lower; a cap the limit cannot hold is refused.",
    ),
    click.option(
        "--durability",
        type=click.Choice(["normal", "full"]),
        default="normal",
        show_default=True,
        help="normal: a token answered survives a crash of the server; full: also a power cut "
        "(an fsync at every commit; slower).",
    ),
    click.option(
        "--purge-interval",
        default=60.0,
        show_default=True,
        type=click.FloatRange(min=0.1),
        help="Seconds between purges of expired and revoked rows.",
    ),
]


def run_options(command: Command) -> Command:
    """Every option of `run` but --data-dir, in the order of --help."""
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def serve_options(
    data_dir: Path,
    *,
    host: str,
    port: int,
    cert: Path | None,
    key: Path | None,
    test_clock: bool,
    workers: int,
    guard_free: int,
    public_url: str | None,
    handshake_timeout: float,
    header_timeout: float,
    body_timeout: float,
    idle_timeout: float,
    max_connections: int | None,
    durability: str,
    purge_interval: float,
) -> ServeOptions:
    """The options checked (a usage error says which is wrong) and made into ServeOptions."""
    if (cert is None) != (key is None):
        raise click.UsageError("--cert and --key go together")
    if public_url is not None and not _is_base_url(public_url):
        raise click.BadParameter(
            "an https URL without query or fragment", param_hint="--public-url"
        )
    from .serve import ServeOptions

    limits = Limits().with_timeouts(header_timeout, body_timeout, idle_timeout, handshake_timeout)
    return ServeOptions(
        data_dir,
        host,
        port,
        cert,
        key,
        test_clock,
        workers,
        public_url=public_url,
        limits=limits,
        purge_interval=purge_interval,
        max_connections=max_connections,
        guard_free=guard_free,
        durability=durability,
    )


def _is_base_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme == "https" and bool(parts.hostname) and not (parts.query or parts.fragment)
