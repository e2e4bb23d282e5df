"""The deployment profile: defaults, overrides and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from steps.profiles.profile import DEFAULT_ENDPOINTS, ProfileError, load_profile, parse_profile

MINIMAL = {
    "base_url": "https://mb.example/",
    "user": {"username": "alice"},
    "clients": {"web": {"client_id": "id", "client_secret": "s", "redirect_uri": "https://c/cb"}},
}


def test_a_minimal_profile_gets_the_contract_defaults() -> None:
    profile = parse_profile(MINIMAL)
    assert profile.base_url == "https://mb.example"
    assert profile.endpoints == DEFAULT_ENDPOINTS
    assert profile.url("token") == "https://mb.example/oauth2/token"
    assert profile.capabilities.test_clock is None and profile.capabilities.oob
    assert not profile.capabilities.manual_revocation
    assert (profile.consent.driver, profile.consent.preset) == ("form", "bundled")
    assert profile.plain_http_base == "http://mb.example"


def test_capabilities_and_consent_overrides_are_read(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(
        'name = "live"\nbase_url = "https://mb.example:8443"\nca_file = "ca.pem"\n'
        'known_deviations = ["PKCE-DOWNGRADE"]\nmin_interval = 1.5\n'
        '[capabilities]\ntest_clock = false\noob = false\nplain_http_url = "http://mb.example:8080"\n'
        '[user]\nusername = "bob"\n'
        '[consent]\ndriver = "manual"\npreset = "musicbrainz"\n'
        '[consent.form]\nlogin_path = "/signin"\n'
    )
    profile = load_profile(path, target="https://other.example/", min_interval=0.25)
    assert profile.base_url == "https://other.example"
    assert profile.min_interval == 0.25
    assert profile.ca_file == str(tmp_path / "ca.pem")
    assert profile.known_deviations == ("PKCE-DOWNGRADE",)
    assert profile.capabilities.test_clock is None and not profile.capabilities.oob
    assert profile.plain_http_base == "http://mb.example:8080"
    assert profile.consent.form == {"login_path": "/signin"}


def test_a_missing_client_role_is_named_in_the_error() -> None:
    with pytest.raises(ProfileError, match=r"\[clients.other_web\]"):
        parse_profile(MINIMAL).client("other_web")


@pytest.mark.parametrize("missing", ["base_url", "user"])
def test_a_profile_without_its_essentials_is_refused(missing: str) -> None:
    data = {k: v for k, v in MINIMAL.items() if k != missing}
    with pytest.raises(ProfileError):
        parse_profile(data)


def test_scopes_are_sent_in_the_deployment_vocabulary() -> None:
    profile = parse_profile(MINIMAL | {"scopes": {"tag": "musicbrainz:tag", "email": "email"}})
    assert profile.scope("profile email tag") == "profile email musicbrainz:tag"
    assert profile.scope("not-a-scope") == "not-a-scope"
    assert profile.renamed_scopes() == {"tag": "musicbrainz:tag"}
    assert parse_profile(MINIMAL).renamed_scopes() == {}


def test_a_miscased_spec_name_becomes_the_same_miscasing_of_the_deployment_name() -> None:
    profile = parse_profile(MINIMAL | {"scopes": {"profile": "mb:profile", "tag": "mb:tag"}})
    assert profile.scope("Profile") == "Mb:profile"
    assert profile.scope("TAG") == "MB:TAG"
    assert profile.scope("Profile") != profile.scope("profile")


@pytest.mark.parametrize("value", [True, "clock", 1])
def test_a_test_clock_without_a_path_is_refused(value: object) -> None:
    with pytest.raises(ProfileError, match="test_clock needs the URL path"):
        parse_profile(MINIMAL | {"capabilities": {"test_clock": value}})


def test_the_capability_values_are_read_and_checked() -> None:
    def capabilities(**table: object):
        return parse_profile(MINIMAL | {"capabilities": table}).capabilities

    assert capabilities(test_clock="/_test/clock").test_clock == "/_test/clock"
    assert capabilities(test_clock="").test_clock is None
    assert capabilities(manual_revocation=True).manual_revocation
    none = capabilities(manual_revocation="none")
    assert none.no_manual_revocation and not none.manual_revocation
    assert not capabilities().no_manual_revocation
    with pytest.raises(ProfileError, match="manual_revocation"):
        capabilities(manual_revocation="sometimes")
    with pytest.raises(ProfileError, match="oob is true or false"):
        capabilities(oob="no")


def test_further_registered_redirect_uris_are_read() -> None:
    web = MINIMAL["clients"]["web"] | {"more_redirect_uris": ["https://c/cb2"]}
    profile = parse_profile(MINIMAL | {"clients": {"web": web}})
    assert profile.client("web").more_redirect_uris == ("https://c/cb2",)
    assert parse_profile(MINIMAL).client("web").more_redirect_uris == ()


def test_known_deviations_as_a_table_carry_their_reasons(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(
        'base_url = "https://mb.example"\n[user]\nusername = "bob"\n'
        '[known_deviations]\nPKCE-DOWNGRADE = "a verifier without a challenge is ignored"\n'
        'DESKTOP-LOOPBACK-PATH = ""\n'
    )
    profile = load_profile(path)
    assert profile.known_deviations == ("PKCE-DOWNGRADE", "DESKTOP-LOOPBACK-PATH")
    assert profile.deviation_reasons == {
        "PKCE-DOWNGRADE": "a verifier without a challenge is ignored"
    }
    assert parse_profile(MINIMAL | {"known_deviations": ["X"]}).deviation_reasons == {}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"PKCE-DOWNGRADE": 3}, r"its reason as text .*PKCE-DOWNGRADE"),
        ("PKCE-DOWNGRADE", "a table of rule id"),
        ([["PKCE-DOWNGRADE"]], "a table of rule id"),
    ],
)
def test_known_deviations_of_another_shape_are_refused(value: object, message: str) -> None:
    with pytest.raises(ProfileError, match=message):
        parse_profile(MINIMAL | {"known_deviations": value})


@pytest.mark.parametrize(
    ("table", "typo", "where", "known"),
    [
        ({"min_intervall": 1.0}, "min_intervall", "top level", "min_interval"),
        ({"failures_per_minut": 5}, "failures_per_minut", "top level", "failures_per_minute"),
        ({"capabilities": {"ob": False}}, "ob", "[capabilities]", "oob"),
        ({"user": {"usename": "bob"}}, "usename", "[user]", "username"),
        ({"endpoints": {"tokens": "/t"}}, "tokens", "[endpoints]", "token"),
        ({"scopes": {"tags": "mb:tag"}}, "tags", "[scopes]", "tag"),
        ({"consent": {"drvier": "manual"}}, "drvier", "[consent]", "driver"),
        ({"consent": {"browser": {"headles": True}}}, "headles", "[consent.browser]", "headless"),
        (
            {"consent": {"manual": {"timeout": 5}}},
            "timeout",
            "[consent.manual]",
            "hand_over_session",
        ),
        ({"clients": {"mobile": {}}}, "mobile", "[clients]", "other_web"),
    ],
)
def test_a_key_no_table_knows_is_refused_with_the_known_ones(
    table: dict[str, object], typo: str, where: str, known: str
) -> None:
    """A typo must not be ignored: a misspelt min_interval would mean an unpaced live run."""
    data = MINIMAL | table
    if "user" in table:
        data["user"] = MINIMAL["user"] | table["user"]  # type: ignore[operator]
    with pytest.raises(ProfileError) as refused:
        parse_profile(data)
    message = str(refused.value)
    assert typo in message and where in message and known in message, message


def test_a_typo_in_an_application_table_is_refused() -> None:
    web = MINIMAL["clients"]["web"] | {"redirect_url": "https://c/cb"}
    with pytest.raises(ProfileError, match=r"\[clients.web\]: redirect_url .*redirect_uri"):
        parse_profile(MINIMAL | {"clients": {"web": web}})


def test_a_table_where_a_value_was_expected_is_refused_plainly() -> None:
    with pytest.raises(ProfileError, match="capabilities must be a table"):
        parse_profile(MINIMAL | {"capabilities": "oob"})


@pytest.mark.parametrize("url", ["http://mb.example", "HTTP://mb.example:8080/"])
def test_a_plain_http_base_url_is_refused_as_https_only(url: str) -> None:
    with pytest.raises(ProfileError, match="HTTPS-only"):
        parse_profile(MINIMAL | {"base_url": url})
    with pytest.raises(ProfileError, match="must be an https:// URL"):
        parse_profile(MINIMAL | {"base_url": "mb.example"})


def test_an_http_target_on_the_command_line_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('base_url = "https://mb.example"\n[user]\nusername = "bob"\n')
    with pytest.raises(ProfileError, match="HTTPS-only"):
        load_profile(path, target="http://mb.example")


def test_known_deviations_may_be_a_list_or_a_table_of_reasons() -> None:
    listed = parse_profile(MINIMAL | {"known_deviations": ["PKCE-DOWNGRADE"]})
    assert listed.known_deviations == ("PKCE-DOWNGRADE",) and listed.deviation_reasons == {}
    reasons = {"PKCE-DOWNGRADE": "the verifier is ignored", "TOKEN-CODE-LIFETIME": "1 hour"}
    tabled = parse_profile(MINIMAL | {"known_deviations": reasons})
    assert tabled.known_deviations == ("PKCE-DOWNGRADE", "TOKEN-CODE-LIFETIME")
    assert tabled.deviation_reasons == reasons
    with pytest.raises(ProfileError, match="a table of rule id"):
        parse_profile(MINIMAL | {"known_deviations": "PKCE-DOWNGRADE"})
