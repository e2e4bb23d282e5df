"""Usage errors of `mb-oauth-conformance` (exit status 2), found before anything starts: option
combinations, unknown rule ids, a profile the suite cannot read."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path

import click

from steps.profiles.profile import ProfileError
from steps.profiles.profile import load_profile as parse
from steps.rules.catalogue import load_catalogue


def known_rule_ids() -> set[str]:
    """Ids of the rule catalogue, for checking --rule before a long run starts."""
    return set(load_catalogue())


def check_options(
    target: str | None, profile: Path | None, rules: Sequence[str], *, port: int | None = None
) -> None:
    """Usage errors (exit status 2) before anything starts."""
    if target and not profile:
        raise click.UsageError("--target needs --profile (the credentials for the target)")
    if port and profile:
        raise click.UsageError("--port is the bundled server's: it cannot go with --profile")
    if target and not target.startswith("https://"):
        raise click.UsageError("--target must be an https:// URL")
    known = known_rule_ids()
    unknown = sorted(set(rules) - known)
    if unknown:
        raise click.UsageError(f"unknown rule id(s): {', '.join(unknown)}")
    if profile:
        check_profile(profile, target, known)


def check_profile(path: Path, target: str | None, known: set[str]) -> None:
    """A profile the suite cannot use is a usage error, said in one line, not a traceback."""
    try:
        profile = parse(path, target=target)
    except (ProfileError, tomllib.TOMLDecodeError, OSError) as error:
        raise click.UsageError(f"profile {path}: {error}") from None
    strays = sorted(set(profile.known_deviations) - known)
    if strays:
        names = ", ".join(strays)
        click.echo(f"warning: known_deviations names unknown rule ids: {names}", err=True)
