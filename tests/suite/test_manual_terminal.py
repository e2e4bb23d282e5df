"""The `manual` driver in a real terminal: `mb-oauth-conformance` runs in a tmux pane against the
bundled server, and a scripted person reads each prompt from the pane (`capture-pane`), does what
it asks in their own browser session (the form driver), and types the answer (`send-keys`).

The run must complete with the verdicts of a form-driver run of the same rules, and the number of
prompts the run itself reports must be the number the person answered. The command writes to the
pane as a person would run it: each prompt starts on a line of its own and pytest's progress dots
never land on its answer line."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from steps.profiles.profile import load_profile
from tests.suite.manual_person import Person, person_for
from tests.suite.target import Target, bundled_target

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(sys.executable).parent / "mb-oauth-conformance"
PROMPT = re.compile(r"\[prompt (\d+) of about (\d+): (\w+)\]")
SUMMARY = re.compile(r"\[manual driver: (\d+) prompt\(s\) in this run: ([^\]]*)\]")
DEADLINE = 300.0  # the whole dialogue; every wait below is bounded by it
POLL = 0.05
#: Rules that ask every kind of prompt (a full run takes over a minute: tools/bench measures
#: it): approvals (one pasting the out-of-band page's address), a denial, an "open" after an
#: approval, a manual revocation, and refusals the driver reads without asking anyone.
RULES = (
    "CODE-OOB-SHOWN",
    "DESKTOP-OOB",
    "AUTHZ-ERR-ACCESS-DENIED",
    "AUTHZ-APPROVAL-AUTO",
    "AUTHZ-ERR-BAD-REDIRECT",
    "REVOKE-MANUAL",
)
SELECTION = " ".join(f"--rule {rule}" for rule in RULES)


def required_tmux() -> str:
    """tmux, or a skip where it is missing (a failure when MB_OAUTH_REQUIRE_TMUX=1)."""
    path = shutil.which("tmux")
    if path:
        return path
    if os.environ.get("MB_OAUTH_REQUIRE_TMUX") == "1":
        pytest.fail("MB_OAUTH_REQUIRE_TMUX=1 but tmux is not installed (apt-get install tmux)")
    pytest.skip("tmux is not installed (apt-get install tmux)")
    raise AssertionError  # unreachable: skip raises


class Pane:
    """One tmux session on a socket of its own, running a command in a wide pane."""

    def __init__(self, tmux: str, socket: Path, command: str) -> None:
        self.base = [tmux, "-S", str(socket), "-f", "/dev/null"]
        self._tmux("new-session", "-d", "-s", "run", "-x", "400", "-y", "80", command)

    def _tmux(self, *args: str) -> str:
        done = subprocess.run([*self.base, *args], capture_output=True, text=True, check=True)
        return done.stdout

    def text(self) -> str:
        """What the pane shows, wrapped lines joined, with its scroll-back."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "run")

    def type(self, line: str) -> None:
        """Type a line as a person would, then Enter."""
        if line:
            self._tmux("send-keys", "-t", "run", "-l", line)
        self._tmux("send-keys", "-t", "run", "Enter")

    def close(self) -> None:
        """End the tmux server of this test."""
        subprocess.run([*self.base, "kill-server"], capture_output=True, check=False)


def _pending(text: str, answered: int) -> str | None:
    """The next prompt once it is fully shown and waits at its "> "."""
    marks = [m for m in PROMPT.finditer(text) if int(m.group(1)) == answered + 1]
    if not marks:
        return None
    prompt = text[marks[-1].start() :]
    last = prompt.rstrip().splitlines()[-1]
    return prompt if last.startswith(">") else None  # waits at "> " (dots may follow it)


def converse(pane: Pane, person: Person, finished: Path, typed: list[str]) -> str:
    """Answer prompts until the command has finished (what was typed goes to `typed`); the
    pane's final text."""
    started = time.monotonic()
    while time.monotonic() - started < DEADLINE:
        text = pane.text()
        if finished.exists():
            return text
        prompt = _pending(text, len(typed))
        if prompt is None:
            time.sleep(POLL)
            continue
        typed.append(person.answer(prompt))
        pane.type(typed[-1])
    raise AssertionError(f"the run did not finish in {DEADLINE} s; the pane:\n{pane.text()}")


def assert_prompts_on_lines_of_their_own(screen: str, typed: list[str]) -> None:
    """Each prompt's first line starts with it, and its answer line holds only "> " and what
    the person typed: no progress dot before the prompt or after the "> "."""
    lines = screen.splitlines()
    starts = [i for i, line in enumerate(lines) if PROMPT.search(line)]
    assert len(starts) == len(typed), screen[-3000:]
    for start, answer in zip(starts, typed, strict=True):
        assert PROMPT.match(lines[start]), f"the prompt shares its line: {lines[start]!r}"
        line = next(line for line in lines[start:] if line.startswith(">"))
        assert line.rstrip() == f"> {answer}".rstrip(), f"dots on the answer line: {line!r}"


def _verdicts(report_dir: Path) -> dict[str, str]:
    data = json.loads((report_dir / "verdicts.json").read_text(encoding="utf-8"))
    rules = data["rules"]
    if isinstance(rules, dict):
        return {rule: item["verdict"] for rule, item in rules.items()}
    return {item["id"]: item["verdict"] for item in rules}


def _run(profile: Path, report_dir: Path) -> subprocess.CompletedProcess[str]:
    command = [str(RUNNER), "--profile", str(profile), "--report-dir", str(report_dir)]
    command += ["--run-lasting", *SELECTION.split()]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=DEADLINE)


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    with bundled_target(tmp_path_factory.mktemp("terminal")) as running:
        yield running


def test_a_person_answers_a_manual_run_in_a_terminal(target: Target, tmp_path: Path) -> None:
    tmux = required_tmux()
    form_run = _run(target.profile_path, tmp_path / "form")
    assert form_run.returncode == 0, form_run.stdout[-2000:]

    manual = tmp_path / "manual.toml"
    text = target.profile_path.read_text(encoding="utf-8")
    manual.write_text(text.replace('driver = "form"', 'driver = "manual"'), encoding="utf-8")
    report, finished = tmp_path / "manual", tmp_path / "exit"
    command = (
        f"cd {ROOT} && {RUNNER} --profile {manual} --report-dir {report} --run-lasting {SELECTION}"
        f"; echo $? > {finished}.tmp; mv {finished}.tmp {finished}; sleep 600"
    )
    person = person_for(load_profile(manual))
    pane = Pane(tmux, tmp_path / "tmux.sock", command)
    typed: list[str] = []
    try:
        screen = converse(pane, person, finished, typed)
    finally:
        pane.close()

    assert finished.read_text().strip() == "0", screen[-3000:]
    assert_prompts_on_lines_of_their_own(screen, typed)
    reported = SUMMARY.search(screen)
    assert reported, f"the run reported no prompt count; the pane:\n{screen[-2000:]}"
    assert int(reported.group(1)) == person.total
    kinds = dict(pair.split(" ") for pair in reported.group(2).split(", "))
    assert {k: int(v) for k, v in kinds.items() if int(v)} == person.answered
    assert set(person.answered) == {"approve", "deny", "open", "revoke"}

    by_form, by_person = _verdicts(tmp_path / "form"), _verdicts(report)
    ran = {rule for rule, verdict in by_form.items() if verdict != "not run"}
    assert ran == set(RULES), by_form
    assert by_person == by_form


def test_without_a_terminal_a_manual_run_stops_with_a_setup_error(
    target: Target, tmp_path: Path
) -> None:
    """No controlling terminal (a new session): exit 2 and one clear line, no verdicts."""
    manual = tmp_path / "manual.toml"
    text = target.profile_path.read_text(encoding="utf-8")
    manual.write_text(text.replace('driver = "form"', 'driver = "manual"'), encoding="utf-8")
    command = [str(RUNNER), "--profile", str(manual), "--report-dir", str(tmp_path / "report")]
    done = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # no controlling terminal: /dev/tty cannot be opened
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    assert "needs a terminal" in done.stderr + done.stdout
    assert not (tmp_path / "report" / "verdicts.json").exists()
