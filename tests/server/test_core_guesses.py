"""The guard's bookkeeping at the token and revocation endpoints' core, without HTTP: wrong
secrets and guessed codes or refresh tokens are counted per address (RFC 6749 10.10), apart,
and a success clears an address's own count (reference_server/guard.py)."""

from __future__ import annotations

from reference_server.guard import GuardPolicy, grant_key_of, key

from .core import PEER, Core, error_of, form

FREE = GuardPolicy().free


def _count(core: Core, throttle_key: str) -> int:
    row = core.state.store.one("SELECT failures FROM throttle WHERE key = ?", throttle_key)
    return int(row["failures"]) if row else 0


def _guess(core: Core, peer: str = PEER) -> None:
    fields = core.refresh_form(core.installed, "A" * 43)
    assert error_of(core.token(form(fields, peer=peer))) == (400, "invalid_grant")


def test_guessed_refresh_tokens_are_counted_apart_from_bad_secrets(core: Core) -> None:
    _guess(core)
    _guess(core)
    client_id = core.installed.client_id
    assert _count(core, grant_key_of(PEER, client_id)) == 2
    assert _count(core, key(PEER, client_id)) == 0


def test_a_refused_request_that_guessed_nothing_is_not_counted(core: Core) -> None:
    fields = core.exchange_form(core.installed, core.code(core.installed))
    del fields["redirect_uri"]
    assert error_of(core.token(form(fields))) == (400, "invalid_request")
    fields = {**core.exchange_form(core.installed, core.code(core.installed)), "token_type": "mac"}
    assert error_of(core.token(form(fields))) == (400, "invalid_request")
    assert _count(core, grant_key_of(PEER, core.installed.client_id)) == 0


def test_a_success_clears_the_addresss_guesses(core: Core) -> None:
    _guess(core)
    core.tokens(core.installed)
    assert _count(core, grant_key_of(PEER, core.installed.client_id)) == 0


def test_past_the_free_guesses_the_address_waits_and_another_does_not(core: Core) -> None:
    for _ in range(FREE):
        _guess(core)
    code = core.code(core.installed)
    answer = core.token(form(core.exchange_form(core.installed, code)))
    assert error_of(answer) == (429, "invalid_client")
    assert int(answer.header("retry-after") or 0) > 0
    revoke = core.revoke(form(core.revoke_form(core.installed, "x")))
    assert revoke.status == 429  # the revocation endpoint authenticates the same way
    elsewhere = core.token(form(core.exchange_form(core.installed, code), peer="198.51.100.7"))
    assert elsewhere.status == 200


def test_past_the_free_bad_secrets_the_client_waits_at_both_endpoints(core: Core) -> None:
    for _ in range(FREE):
        fields = core.revoke_form(core.installed, "x") | {"client_secret": "wrong"}
        assert error_of(core.revoke(form(fields))) == (401, "invalid_client")
    answer = core.token(form(core.exchange_form(core.installed, core.code(core.installed))))
    assert error_of(answer) == (429, "invalid_client")
    assert core.tokens(core.web)  # another client from the same address is untouched
