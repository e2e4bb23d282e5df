"""``mb-oauth --help`` and ``mb-oauth token`` import only what they need."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from client_kit._storage import FileStore, StoreKey
from tests.kit.helpers import make_tokens

HEAVY = (
    "httpx",
    "httpcore",
    "asyncio",
    "http.server",
    "playwright",
    "client_kit._loopback",
    "client_kit._auth",
    "webbrowser",
    "ssl",
)

PROBE = """
import json, sys
from client_kit._cli import main
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def probe(args: list[str], env_extra: dict[str, str]) -> tuple[int, set[str], str]:
    root = Path(__file__).resolve().parents[2]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), **env_extra}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    report = json.loads(result.stderr.strip().splitlines()[-1])
    return report["code"], set(report["modules"]), result.stdout


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    FileStore(tmp_path / "store").save(
        StoreKey("https://mb.test", "cid"), make_tokens("fresh-access-token")
    )
    return {
        "MB_OAUTH_SERVICE": "https://mb.test",
        "MB_OAUTH_CLIENT_ID": "cid",
        "MB_OAUTH_STORE": f"file:{tmp_path / 'store'}",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }


@pytest.mark.parametrize("args", [["--help"], ["token"]])
def test_light_commands_import_little(args, env) -> None:
    code, modules, stdout = probe(args, env)
    assert code in (0, None)
    if args == ["token"]:
        assert stdout == "fresh-access-token\n"
    assert not [name for name in HEAVY if name in modules]


def test_importing_the_package_is_lazy() -> None:
    code = (
        "import sys, client_kit; "
        "print(sorted(m for m in sys.modules if m.startswith(('client_kit', 'httpx'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    ).stdout
    assert out.strip() == "['client_kit']"
