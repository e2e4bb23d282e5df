"""The password of `add-user`, read from a person or from standard input.

A person typing it is told at once when it is too short, before being asked to repeat it,
and asked again; the rules are `account_rules`' (the same the account is created with).
"""

from __future__ import annotations

import sys

import click

from .account_rules import AccountError, check_password


def read_password(from_stdin: bool) -> str:
    """From standard input (a script's: checked, never asked again), or typed twice."""
    if from_stdin or not sys.stdin.isatty():
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            raise click.UsageError("no password given")
        _refuse_short(password)
        return password
    while True:
        password = _typed("Password")
        try:
            check_password(password)
        except AccountError as error:
            click.echo(f"Error: {error}. Try again.", err=True)
            continue
        if _typed("Repeat for confirmation") == password:
            return password
        click.echo("Error: the two entries do not match. Try again.", err=True)


def _typed(prompt: str) -> str:
    return str(click.prompt(prompt, hide_input=True, err=True))


def _refuse_short(password: str) -> None:
    try:
        check_password(password)
    except AccountError as error:
        raise click.ClickException(str(error)) from None
