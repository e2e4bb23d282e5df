"""The run-wide files (failure budget, epoch, the locks of `--workers` runs) live in a folder of
the user's own and are never followed through a link, taken from another user or truncated
when the suite did not write them (steps/safety/run_files.py)."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest

from client_kit import private_files
from steps.http.throttle import FailureBudget
from steps.outcomes import NotChecked
from steps.profiles.profile import load_profile
from steps.run.preflight import PreflightError, run_preflight
from steps.safety import run_files
from steps.scheduling.isolation import Isolation

TARGET = "https://target.example"
NOBODY = 65534


def owned_by_someone_else(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Give `path` to another user: really where the tests run as root, else by making the
    suite see itself as another user."""
    if os.geteuid() == 0:
        os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
    else:
        monkeypatch.setattr(private_files, "_me", lambda: os.geteuid() + 1)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    made = tmp_path / "run"
    made.mkdir(mode=0o700)
    return made


def test_the_budget_lives_in_a_private_folder_of_the_user_not_the_shared_temp_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    budget = FailureBudget(TARGET, per_minute=3)
    budget.record("client")
    assert budget.path.parent == tmp_path / "mb-oauth" / "conformance"
    assert stat.S_IMODE(budget.path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(budget.path.stat().st_mode) == 0o600


def test_a_planted_link_is_not_followed_and_its_target_is_left_alone(folder: Path) -> None:
    budget = FailureBudget(TARGET, per_minute=3, directory=folder)
    victim = folder.parent / "victim.txt"
    victim.write_text("a file of the person running the suite")
    budget.path.symlink_to(victim)
    with pytest.raises(NotChecked, match="symbolic link"):
        budget.record("client")
    assert victim.read_text() == "a file of the person running the suite"


def test_a_planted_link_as_the_lock_creates_nothing_at_its_target(folder: Path) -> None:
    budget = FailureBudget(TARGET, per_minute=3, directory=folder)
    target = folder.parent / "created-by-the-suite"
    budget.lock_path.symlink_to(target)
    with pytest.raises(NotChecked, match="symbolic link"):
        budget.record("client")
    assert not target.exists()


def test_a_budget_file_of_another_user_is_refused_not_read(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another user keeping the file full of fresh failures would hold the run for ever."""
    budget = FailureBudget(TARGET, per_minute=3, directory=folder)
    full = json.dumps({"client": [time.time()] * 50})
    budget.path.write_text(full)
    owned_by_someone_else(budget.path, monkeypatch)
    with pytest.raises(NotChecked, match="another user"):
        budget.wait_turn("client")
    assert budget.waited == 0
    assert budget.path.read_text() == full


def test_a_file_full_of_junk_is_named_and_never_truncated(folder: Path) -> None:
    budget = FailureBudget(TARGET, per_minute=3, directory=folder)
    junk = "not the suite's\n" * 100_000
    budget.path.write_text(junk)
    with pytest.raises(NotChecked, match="not a failure budget file of the suite"):
        budget.record("client")
    assert budget.path.read_text() == junk


def test_the_suites_own_file_is_read_and_replaced_whole(folder: Path) -> None:
    budget = FailureBudget(TARGET, per_minute=3, directory=folder)
    budget.record("client")
    first = folder / "first"
    os.link(budget.path, first)  # the file as it was, under a second name
    written = first.read_text()
    budget.record("client")
    with FailureBudget(TARGET, per_minute=3, directory=folder)._log() as log:
        assert len(log["client"]) == 2
    assert first.read_text() == written  # a new file was put in place: the old one unchanged


def test_a_folder_others_may_write_to_is_made_private(folder: Path) -> None:
    folder.chmod(0o777)
    FailureBudget(TARGET, per_minute=3, directory=folder).record("client")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_folder_shared_by_all_or_of_another_user_is_refused(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    with pytest.raises(NotChecked, match="shared by all users"):
        FailureBudget(TARGET, per_minute=3, directory=shared)
    owned_by_someone_else(folder, monkeypatch)
    with pytest.raises(NotChecked, match="another user"):
        FailureBudget(TARGET, per_minute=3, directory=folder)


def test_a_linked_run_folder_is_refused(tmp_path: Path, folder: Path) -> None:
    link = tmp_path / "linked"
    link.symlink_to(folder)
    with pytest.raises(NotChecked, match="symbolic link"):
        FailureBudget(TARGET, per_minute=3, directory=link)


def test_the_epoch_file_of_workers_is_never_written_through_a_link(folder: Path) -> None:
    victim = folder.parent / "victim.txt"
    victim.write_text("precious")
    epoch = folder / "epoch-run.json"
    epoch.symlink_to(victim)
    state = Isolation(epoch)
    with pytest.raises(NotChecked, match="symbolic link"):
        state.end_epoch()
    assert victim.read_text() == "precious"


def test_the_epoch_counts_writers_in_its_own_file(folder: Path) -> None:
    state = Isolation(folder / "epoch-run.json")
    assert state.epoch() == 0
    state.end_epoch()
    state.end_epoch()
    assert Isolation(folder / "epoch-run.json").epoch() == 2


def test_old_runs_files_are_removed_and_others_kept(folder: Path) -> None:
    old, fresh, other = folder / "writers-old.lock", folder / "clock-new.lock", folder / "mine"
    for path in (old, fresh, other):
        path.write_text("")
    os.utime(old, (0, 0))
    os.utime(other, (0, 0))
    run_files._cleaned.discard(folder)
    run_files.run_folder(folder)
    assert not old.exists() and fresh.exists() and other.exists()


def test_the_preflight_stops_on_an_unsafe_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = tmp_path / "runtime"
    (runtime / "mb-oauth").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (runtime / "mb-oauth" / "conformance").symlink_to(elsewhere)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    profile_file = tmp_path / "p.toml"
    profile_file.write_text(
        'name = "t"\nbase_url = "https://127.0.0.1:9"\n[user]\nusername = "alice"\n'
    )
    with pytest.raises(PreflightError, match="run-wide files cannot be kept"):
        run_preflight(load_profile(profile_file))
