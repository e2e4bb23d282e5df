"""The exit codes of `mb-oauth` are written once (client_kit/_cli_exit.py); `--help` and the
kit's page (docs/client-kit.md) show that table, and every error the kit raises has its row."""

from __future__ import annotations

from click.testing import CliRunner

import client_kit
from client_kit._cli import cli
from client_kit._cli_exit import TABLE, exit_code, help_text, markdown
from tests.docs_pages import page


def test_each_code_has_one_row_in_order() -> None:
    assert [row.number for row in TABLE] == list(range(len(TABLE)))


def test_help_shows_the_table() -> None:
    shown = CliRunner().invoke(cli, ["--help"], prog_name="mb-oauth").output
    for row in TABLE:
        assert f"  {row.number}  {row.meaning}" in shown
    assert help_text().startswith("\b\nExit codes:")


def test_the_kits_page_shows_the_table() -> None:
    assert markdown() in page("client-kit.md"), (
        "docs/client-kit.md's exit-code table differs from client_kit/_cli_exit.py; paste:\n"
        + markdown()
    )


def test_every_public_error_exits_with_a_code_of_the_table() -> None:
    errors = [
        value
        for name in client_kit.__all__
        if isinstance(value := getattr(client_kit, name), type)
        and issubclass(value, client_kit.KitError)
    ]
    assert len(errors) > 20
    numbers = {row.number for row in TABLE}
    for error in errors:
        assert exit_code(error.__new__(error)) in numbers
    assert exit_code(client_kit.UnauthorizedClient()) == 4  # the most specific row wins
    assert exit_code(client_kit.LoginIntercepted("x")) == 6
