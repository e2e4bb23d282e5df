"""`help()` and `dir()` show the public names; the README documents them."""

from __future__ import annotations

import pydoc
import subprocess
import sys
from pathlib import Path

import client_kit
from client_kit.flow import KINDS

ROOT = Path(__file__).resolve().parents[2]
NEW = (
    "AuthorizationRequest",
    "DesktopLogin",
    "KeyringFailure",
    "LoginHandle",
    "LoginEvent",
    "LoginStatus",
    "LoopbackPages",
    "Session",
)


def test_help_and_dir_list_the_public_classes() -> None:
    text = pydoc.render_doc(client_kit, renderer=pydoc.plaintext)
    listed = dir(client_kit)
    for name in NEW:
        assert name in text and name in listed, name
    assert set(client_kit.__all__) <= set(listed)
    for name in client_kit.__all__:
        assert getattr(client_kit, name) is not None


def test_importing_the_package_imports_no_implementation() -> None:
    probe = "import sys, client_kit; dir(client_kit); print(sorted(sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout  # fmt: skip
    assert "client_kit.session" not in out and "httpx" not in out


def test_the_readme_documents_the_embedding_api() -> None:
    readme = (ROOT / "README.md").read_text()
    embed = readme.split("### Embed it", 1)[1].split("\n## ", 1)[0]
    for needle in (
        "profiles.custom(",  # the bundled server / a custom base URL
        "ca_bundle=",
        "begin_login(",
        "complete_login(",
        "to_json()",
        "await session.alogin(",
        "start_login(",
        "broker_url=",
        "client_kit.broker",
        "examples/tk_login.py",
        "LoopbackPages(",
        # what an embedder had to read the source for (issue 19, item 3)
        *(f"| `{kind}` |" for kind in KINDS),  # every kind of LoginEvent
        "open_browser=",
        "check=True",
        "POST /oauth/token",  # the broker's paths
        "broker_ca_bundle=",  # the CA for the broker
        "verify=",  # your own httpx.Client trusts the CA too
        "request.save(",
    ):
        assert needle in embed, needle
    assert "client_kit.authorization" not in embed  # no private names needed any more


def test_the_readme_recipe_runs_the_venv_commands() -> None:
    """Every command of the kit's recipe is the one in .venv/bin, never a bare name."""
    readme = (ROOT / "README.md").read_text()
    kit = readme.split("## Client kit", 1)[1].split("\n## ", 1)[0]
    blocks = [
        block.split("\n", 1)[1]
        for block in kit.split("```")[1::2]
        if block.startswith(("sh", "bash"))
    ]
    words = [word for block in blocks for word in block.replace("$(", " ").split()]
    commands = [
        word for word in words if word.split("/")[-1] in ("mb-oauth", "mb-oauth-server", "python")
    ]
    assert commands and all(word.startswith(".venv/bin/") for word in commands), commands
