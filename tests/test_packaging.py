"""What `pip install .` ships is the whole tree, not the part someone remembered to list.

pyproject.toml names its packages one by one (the feature files are mapped to a package of
their own, which setuptools' finder cannot do). A folder added under a product package and
left out of that list installs fine in editable mode and breaks every installed copy, so the
list is compared with the folders here, and a built wheel is compared with the files.
CI goes one step further (tools/installed_check.sh): it installs that wheel in a fresh
environment and runs the server and the whole suite from outside the checkout.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("reference_server", "client_kit", "steps")
FEATURES = ("features", "mb_oauth_features")


def _setuptools() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _python_folders() -> set[str]:
    """Every folder of the product packages that holds Python, as a dotted package name."""
    folders = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for top in PRODUCT
        for path in (ROOT / top).rglob("*.py")
    }
    return {folder for folder in folders if "__pycache__" not in folder}


def test_every_python_folder_is_a_listed_package() -> None:
    listed = set(_setuptools()["packages"])
    missing = sorted(_python_folders() - listed)
    assert not missing, (
        f"pyproject.toml [tool.setuptools] packages lacks {missing}: an installed copy "
        "(pip install ., a wheel) would not have them; add them to that list"
    )


def test_every_listed_package_is_a_folder_with_an_init() -> None:
    package_dir = _setuptools().get("package-dir", {})
    for package in _setuptools()["packages"]:
        folder = ROOT / package_dir.get(package, package.replace(".", "/"))
        assert folder.is_dir(), f"pyproject.toml lists {package}, which has no folder {folder}"
        if package not in package_dir:
            assert (folder / "__init__.py").is_file(), f"{folder} has no __init__.py"


def _source_files() -> list[str]:
    """The files a clean clone has, with new ones not yet committed (git's ignore rules)."""
    listing = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [name for name in listing.split("\0") if name and (ROOT / name).is_file()]


@pytest.mark.slow
def test_the_built_wheel_holds_every_file_of_the_tree(tmp_path: Path) -> None:
    # Built from a copy: an in-tree build leaves build/lib behind, whose stale modules a later
    # wheel would ship.
    source = tmp_path / "source"
    for name in _source_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--wheel-dir",
            str(tmp_path),
            str(source),
        ],
        check=True,
        cwd=tmp_path,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    wanted = {
        path.relative_to(ROOT).as_posix()
        for top in PRODUCT
        for path in (ROOT / top).rglob("*")
        if path.suffix in {".py", ".pyi", ".toml", ".css"} and "__pycache__" not in path.parts
    }
    wanted |= {
        f"{FEATURES[1]}/{path.name}"
        for path in (ROOT / FEATURES[0]).iterdir()
        if path.suffix in {".feature", ".toml"}
    }
    missing = sorted(wanted - shipped)
    assert not missing, f"the wheel lacks {missing[:10]} (pyproject.toml packages/package-data)"


@pytest.mark.parametrize(
    ("missing", "remedy"),
    [
        ("reference_server.grants", "built without it"),
        ("uvicorn", "pip install 'mb-oauth[server]'"),
    ],
)
def test_a_server_that_cannot_be_imported_is_named_for_its_real_cause(
    missing: str, remedy: str
) -> None:
    from steps.profiles.bundled import _missing_server_reason

    reason = _missing_server_reason(ModuleNotFoundError(f"No module {missing}", name=missing))
    assert missing in reason
    assert remedy in reason
