"""The file store's folder, token and lock files against another local user,
and the saved login request, which holds the PKCE verifier."""

from __future__ import annotations

import logging
import os
import stat

import pytest

from client_kit import AuthorizationRequest, _cli_exit, _errors, private_files
from client_kit._authorization import build_request
from client_kit._session import Session
from client_kit._storage import FileStore
from tests.kit.helpers import CLIENT_ID, CLIENT_SECRET, in_thread, make_tokens, token_json
from tests.kit.test_cli import KEY, env, run  # noqa: F401 - the CLI's environment fixture

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions and links")


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_world_writable_store_folder_is_made_private_with_a_warning(tmp_path, caplog) -> None:
    folder = tmp_path / "tokens"
    folder.mkdir()
    folder.chmod(0o777)
    store = FileStore(folder)
    with caplog.at_level(logging.WARNING, logger="client_kit"):
        assert store.load(KEY) is None
    assert mode(folder) == 0o700
    assert "writable by others (mode 777)" in caplog.text and str(folder) in caplog.text
    store.save(KEY, make_tokens("mine"))
    assert store.load(KEY).access_token == "mine"


def test_a_group_writable_folder_is_made_private_by_a_save(tmp_path) -> None:
    folder = tmp_path / "tokens"
    folder.mkdir()
    folder.chmod(0o770)
    store = FileStore(folder)
    store.save(KEY, make_tokens())  # saving repairs it as well
    assert mode(folder) == 0o700


def test_a_folder_of_another_user_is_refused(tmp_path, monkeypatch) -> None:
    store = FileStore(tmp_path / "tokens")
    store.save(KEY, make_tokens())
    monkeypatch.setattr(private_files, "_me", lambda: os.geteuid() + 1)
    with pytest.raises(_errors.StorageError, match="belongs to another user"):
        store.load(KEY)


def test_a_shared_folder_like_tmp_is_refused_and_left_alone(tmp_path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o1777)
    with pytest.raises(_errors.StorageError, match="shared by all users"):
        FileStore(folder).save(KEY, make_tokens())
    assert mode(folder) == 0o1777 and list(folder.iterdir()) == []


def test_a_symlinked_token_file_is_refused_never_followed(env, tmp_path, mock) -> None:  # noqa: F811
    store = FileStore(env["MB_OAUTH_STORE"][5:])
    store.save(KEY, make_tokens("my-own-token"))
    theirs = tmp_path / "attacker.json"
    theirs.write_text(make_tokens("the-attackers-token").to_json())
    path = store._path(KEY)
    path.unlink()
    path.symlink_to(theirs)
    result = run("token")
    assert result.exit_code == _cli_exit.EXIT_STORAGE, result.output
    assert "the-attackers-token" not in result.output
    assert "symbolic link" in result.stderr and str(path) in result.stderr


def test_a_planted_fifo_is_refused_without_blocking(tmp_path) -> None:
    store = FileStore(tmp_path / "tokens")
    store.save(KEY, make_tokens())
    path = store._path(KEY)
    path.unlink()
    os.mkfifo(path)
    finished, _, error = in_thread(store.load, KEY)
    assert finished and isinstance(error, _errors.StorageError), error


def test_a_symlinked_lock_file_is_refused_and_its_target_not_created(
    tmp_path,
    mb_profile,
    mock,
) -> None:
    store = FileStore(tmp_path / "tokens")
    session = Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=store)
    store.save(session.key, make_tokens(expires_in=-10))
    target = tmp_path / "elsewhere" / "created-by-the-kit"
    target.parent.mkdir()
    store.lock_path(session.key).symlink_to(target)
    refresh = mock.post("/oauth2/token").respond(200, json=token_json("new", "r2"))
    with pytest.raises(_errors.StorageError, match="symbolic link"):
        session.access_token()
    assert not target.exists() and not refresh.called


def test_the_saved_request_is_private_and_a_link_is_refused(tmp_path, mb_profile) -> None:
    request = build_request(mb_profile, CLIENT_ID, "http://localhost:8000/callback", ["tag"])
    path = tmp_path / "login.json"
    request.save(path)
    assert mode(path) == 0o600
    assert AuthorizationRequest.load(path) == request
    other = tmp_path / "other.json"
    other.write_text(request.to_json())
    path.unlink()
    path.symlink_to(other)
    with pytest.raises(_errors.StorageError, match="symbolic link"):
        AuthorizationRequest.load(path)
    request.save(path)  # replaces the link, does not write through it
    assert not path.is_symlink() and mode(path) == 0o600
