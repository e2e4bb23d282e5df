"""The public API: declared once (client_kit/__init__.pyi), every other module marked internal
by its leading underscore; `help()` and `dir()` show it, the docs and the examples use only it."""

from __future__ import annotations

import ast
import pydoc
import subprocess
import sys
from pathlib import Path

import client_kit
from client_kit._flow import KINDS
from tests.architecture_page import table
from tests.docs_pages import page, section

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


KIT = ROOT / "client_kit"
#: The kit's modules as docs/architecture.md lists them ("The kit's modules"): the public ones
#: and the internal ones, whose names begin with "_".
MODULES = {row["module"]: row["public"] == "yes" for row in table("The kit's modules")}
PUBLIC_MODULES = {name for name, public in MODULES.items() if public}


def stub_names() -> dict[str, str]:
    """Each public name of the stub, and the module it comes from."""
    tree = ast.parse((KIT / "__init__.pyi").read_text())
    return {
        alias.name: node.module or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def test_the_stub_is_the_one_list_of_public_names() -> None:
    names = stub_names()
    assert sorted(client_kit.__all__) == sorted(names)
    assert "__all__" not in (KIT / "__init__.pyi").read_text()  # no second list there
    for name, module in names.items():
        value = getattr(client_kit, name)
        where = value.__name__ if isinstance(value, type(client_kit)) else value.__module__
        assert where == f"client_kit.{module}", name


def test_every_module_is_public_by_the_stub_or_internal_by_its_name() -> None:
    modules = {path.stem for path in KIT.glob("*.py")} - {"__init__"}
    public = {name for name in modules if not name.startswith("_")}
    assert public <= PUBLIC_MODULES, f"public by name, but not in __init__.pyi: {public}"
    assert public <= set(stub_names())
    assert len(modules - public) > 30  # the internals are there, marked as such
    assert modules == set(MODULES), "docs/architecture.md lists the kit's modules"
    assert all(public == (not name.startswith("_")) for name, public in MODULES.items())


def imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    found = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [f"{node.module}.{alias.name}" for alias in node.names]
    return found


def test_the_examples_use_only_public_names() -> None:
    examples = sorted((ROOT / "examples").glob("*.py"))
    assert examples
    private = [
        f"{path.name}: {name}"
        for path in examples
        for name in imports_of(path)
        if name.startswith("client_kit.") and any(p.startswith("_") for p in name.split(".")[1:])
    ]
    assert private == []


def test_a_private_import_in_an_example_is_found(tmp_path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text("from client_kit._config import open_store\n")
    assert imports_of(planted) == ["client_kit._config.open_store"]


def test_importing_the_package_imports_no_implementation() -> None:
    probe = "import sys, client_kit; dir(client_kit); print(sorted(sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout  # fmt: skip
    assert "client_kit._session" not in out and "httpx" not in out


def test_the_kits_page_documents_the_embedding_api() -> None:
    embed = section("client-kit.md", "Embed it")
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
        "examples/qt_login.py",
        "BundledServerUser(",  # applications' tests approve the consent page
        "event.browser_url",
        "runs on the thread",  # which thread runs on_event and the done callbacks
        '"login cancelled"',  # what a cancel looks like as an event
        "block the calling thread",  # which Session methods block
        "LoopbackPages(",
        # what an embedder once had to read the source for
        *(f"| `{kind}` |" for kind in KINDS),  # every kind of LoginEvent
        "open_browser=",
        "check=True",
        "POST /oauth/token",  # the broker's paths
        "broker_ca_bundle=",  # the CA for the broker
        "verify=",  # your own httpx.Client trusts the CA too
        "request.save(",
    ):
        assert needle in embed, needle
    assert "client_kit._" not in embed  # no internal module needed


def test_the_kits_recipe_runs_the_venv_commands() -> None:
    """Every command of the kit's recipe is the one in .venv/bin, never a bare name."""
    kit = page("client-kit.md")
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
