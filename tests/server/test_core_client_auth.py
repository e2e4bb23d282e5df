"""Client authentication at the token endpoint's core, without HTTP (spec 5.1; RFC 6749
2.3, 2.3.1): credentials in the body or with HTTP Basic, never both; any other scheme is no
client authentication; a wrong secret is invalid_client with its challenge. (The revocation
endpoint authenticates the same way: test_core_revoke_userinfo.py.)
"""

from __future__ import annotations

import pytest

from .core import Core, basic, error_of, form, no_store


class TestClientAuthentication:
    def test_basic_credentials_stand_for_the_body_ones(self, core: Core) -> None:
        fields = core.exchange_form(core.installed, core.code(core.installed))
        del fields["client_id"], fields["client_secret"]
        credentials = basic(core.installed.client_id, core.installed.secret)
        assert core.token(form(fields, authorization=credentials)).status == 200

    def test_basic_credentials_are_form_decoded(self, core: Core) -> None:
        """RFC 6749 2.3.1: client_id and secret are form-encoded before base64."""
        fields = core.exchange_form(core.installed, core.code(core.installed))
        del fields["client_id"], fields["client_secret"]
        encoded_id = "".join(f"%{ord(c):02X}" for c in core.installed.client_id)
        credentials = basic(encoded_id, core.installed.secret)
        assert core.token(form(fields, authorization=credentials)).status == 200

    def test_basic_with_the_same_client_id_in_the_body_is_fine(self, core: Core) -> None:
        fields = core.exchange_form(core.installed, core.code(core.installed))
        del fields["client_secret"]
        credentials = basic(core.installed.client_id, core.installed.secret)
        assert core.token(form(fields, authorization=credentials)).status == 200

    @pytest.mark.parametrize("in_body", ["client_secret", "other client_id"])
    def test_two_methods_at_once_are_refused(self, core: Core, in_body: str) -> None:
        fields = core.exchange_form(core.installed, core.code(core.installed))
        del fields["client_secret"]
        if in_body == "client_secret":
            fields["client_secret"] = core.installed.secret
        else:
            fields["client_id"] = core.web.client_id
        credentials = basic(core.installed.client_id, core.installed.secret)
        answer = core.token(form(fields, authorization=credentials))
        assert error_of(answer) == (400, "invalid_request")

    @pytest.mark.parametrize("header", ["Basic !!!", "Basic " + "bm9jb2xvbg==", "Basic w6k="])
    def test_unreadable_basic_credentials_are_invalid_client(self, core: Core, header: str) -> None:
        fields = core.exchange_form(core.installed, core.code(core.installed))
        del fields["client_id"], fields["client_secret"]
        answer = core.token(form(fields, authorization=header))
        assert error_of(answer) == (401, "invalid_client")
        assert (answer.header("www-authenticate") or "").startswith("Basic realm=")

    def test_another_scheme_is_no_client_authentication(self, core: Core) -> None:
        """MusicBrainz Picard sends its Bearer token along with body credentials."""
        fields = core.exchange_form(core.installed, core.code(core.installed))
        answer = core.token(form(fields, authorization="Bearer something"))
        assert answer.status == 200

    @pytest.mark.parametrize("wrong", ["end", "prefix", "longer", "other client's"])
    def test_a_wrong_secret_is_invalid_client_with_a_challenge(
        self, core: Core, wrong: str
    ) -> None:
        secret = core.installed.secret
        wrong_secret = {
            "end": secret[:-1] + ("A" if secret[-1] != "A" else "B"),
            "prefix": secret[:-1],
            "longer": secret + "A",
            "other client's": core.web.secret,
        }[wrong]
        code = core.code(core.installed)
        fields = core.exchange_form(core.installed, code, client_secret=wrong_secret)
        answer = core.token(form(fields))
        assert error_of(answer) == (401, "invalid_client") and no_store(answer)
        assert (
            answer.header("www-authenticate") == 'Basic realm="MusicBrainz OAuth reference server"'
        )
        assert core.token(form(core.exchange_form(core.installed, code))).status == 200

    def test_an_unknown_client_is_invalid_client(self, core: Core) -> None:
        fields = core.exchange_form(core.installed, core.code(core.installed), client_id="nobody")
        assert error_of(core.token(form(fields))) == (401, "invalid_client")
