"""Settings: options over environment over the config file."""

from __future__ import annotations

import pytest

from client_kit._config import SETTINGS, config_path, parse_ports, resolve_settings
from client_kit._errors import ConfigurationError
from tests.docs_pages import section


def write(tmp_path, text: str):
    path = tmp_path / "mb-oauth" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_xdg_config_home_is_honoured(tmp_path) -> None:
    assert config_path({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "mb-oauth/config.toml"
    assert config_path({"MB_OAUTH_CONFIG": "/x/y.toml"}).as_posix() == "/x/y.toml"


def test_precedence(tmp_path) -> None:
    write(
        tmp_path,
        'service = "metabrainz"\nclient_id = "file-id"\nclient_secret = "file-s"\n'
        'ports = [8976, 8977]\n[services.metabrainz]\nclient_id = "meta-id"\n',
    )
    env = {"XDG_CONFIG_HOME": str(tmp_path), "MB_OAUTH_CLIENT_SECRET": "env-s"}
    s = resolve_settings({"client_id": None}, env)
    assert s.get("service") == "metabrainz"
    assert s.get("client_id") == "meta-id"  # the per-service section
    assert s.get("client_secret") == "env-s" and s.sources["client_secret"] == "environment"
    assert parse_ports(s.get("ports")) == (8976, 8977)
    s = resolve_settings({"client_id": "cli-id"}, env)
    assert s.get("client_id") == "cli-id" and s.sources["client_id"] == "command line"


def test_bad_config_files(tmp_path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    write(tmp_path, "client_id = ")
    with pytest.raises(ConfigurationError, match="not valid TOML"):
        resolve_settings({}, env)
    write(tmp_path, 'clientid = "x"\n')
    with pytest.raises(ConfigurationError, match="unknown setting"):
        resolve_settings({}, env)
    assert resolve_settings({}, {"XDG_CONFIG_HOME": str(tmp_path / "none")}).values == {}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (("8976", "8977"), (8976, 8977)),
        (("8976,8977",), (8976, 8977)),
        ("8976 8976", (8976,)),
        ([8000], (8000,)),
        (None, ()),
    ],
)
def test_parse_ports(value, expected) -> None:
    assert parse_ports(value) == expected


@pytest.mark.parametrize("value", ["http", "0", "70000"])
def test_parse_ports_rejects(value) -> None:
    with pytest.raises(ConfigurationError):
        parse_ports(value)


def test_settings_are_read_with_their_type(tmp_path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path), "MB_OAUTH_SCOPES": "profile,tag email"}
    write(tmp_path, 'client_id = 5\nscopes = "profile"\nports = {a = 1}\n')
    s = resolve_settings({}, env)
    assert s.words("scopes") == ["profile", "tag", "email"]  # a string from the environment
    with pytest.raises(ConfigurationError, match="client_id must be a string") as info:
        s.text("client_id")
    assert "config.toml" in str(info.value)  # where the wrong value came from
    with pytest.raises(ConfigurationError, match="not a list of ports"):
        parse_ports(s.get("ports"))
    write(tmp_path, 'scopes = ["profile", "tag"]\n')
    s = resolve_settings({}, {"XDG_CONFIG_HOME": str(tmp_path)})
    assert s.words("scopes") == ["profile", "tag"] and s.text("client_id", "none") == "none"


def readme_config_example() -> str:
    """The config.toml example of the kit page's musicbrainz.org section, every line
    uncommented."""
    login = section("client-kit.md", "Log in to musicbrainz.org (or metabrainz.org)")
    example = login.split("```toml\n", 1)[1].split("```", 1)[0]
    lines = [line.removeprefix("# ") for line in example.splitlines()]
    return "\n".join(line for line in lines if not line.startswith("#"))


def test_the_readmes_config_example_names_every_setting_and_reads(tmp_path) -> None:
    text = readme_config_example()
    named = {line.split("=", 1)[0].strip() for line in text.splitlines() if "=" in line}
    lacking = set(SETTINGS) - named
    assert not lacking, f"docs/client-kit.md's config.toml example lacks {lacking}"
    write(tmp_path, text)
    settings = resolve_settings({}, {"XDG_CONFIG_HOME": str(tmp_path)})
    assert settings.text("ca_bundle") == "/path/to/ca.pem"
    assert parse_ports(settings.get("ports")) == (8976, 8977)
