"""The documentation site (mkdocs.yml): it builds strictly from the tree, every page of docs/ is
in its navigation, the README is its home page, and a link to a file or line that is not there
stops the build (tools/docs_links.py), as an ordinary broken link between pages does."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.docs_pages import DOCS, ROOT
from tools.docs_links import broken, from_readme, resolve


def build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120)


def copy_of_the_tree(tmp_path: Path) -> Path:
    """What the site is built from: mkdocs.yml, the README, docs/ and the files they cite."""
    root = tmp_path / "tree"
    shutil.copytree(
        ROOT,
        root,
        ignore=shutil.ignore_patterns(".*", "site", "reports", "*.egg-info", "__pycache__"),
    )
    return root


def navigation() -> list[str]:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    return [next(iter(entry.values())) for entry in config["nav"]]


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    done = build(ROOT, tmp_path / "site")
    assert done.returncode == 0, done.stderr[-3000:]
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "The two commands" in home and 'href="checking-a-deployment/"' in home


def test_every_page_is_in_the_navigation() -> None:
    pages = {path.name for path in DOCS.glob("*.md")} | {"index.md"}
    assert sorted(pages - set(navigation())) == [], "add the page to mkdocs.yml's nav"
    assert sorted(set(navigation()) - pages) == []


@pytest.mark.parametrize(
    ("link", "why"),
    [
        ("[gone](../steps/no_such_module.py)", "no such file"),
        ("[too far](../Makefile#L99999)", "past the file's"),
    ],
)
def test_a_broken_link_to_a_file_stops_the_build(tmp_path: Path, link: str, why: str) -> None:
    root = copy_of_the_tree(tmp_path)
    page = root / "docs" / "proof.md"
    page.write_text(page.read_text(encoding="utf-8") + f"\nSee {link}.\n", encoding="utf-8")
    done = build(root, tmp_path / "site")
    assert done.returncode != 0
    assert "proof.md links to a repository file that is not there" in done.stderr
    assert why in done.stderr


def test_a_link_to_a_file_becomes_the_repository_address_or_its_text() -> None:
    text = "[the layer](../steps/http/layer.py#L1) and [the Makefile](../Makefile)"
    linked, problems = resolve(text, DOCS, ROOT, "https://example.org/repo/blob/main/")
    assert problems == []
    assert "(https://example.org/repo/blob/main/steps/http/layer.py#L1)" in linked
    assert "(https://example.org/repo/blob/main/Makefile)" in linked
    plain, _ = resolve(text, DOCS, ROOT, None)
    assert plain == "the layer and the Makefile"


def test_a_link_out_of_the_repository_is_broken() -> None:
    _, problems = resolve("[secret](../../../etc/passwd)", DOCS, ROOT, None)
    assert problems and "outside the repository" in problems[0]
    assert broken(ROOT / "Makefile", "0") is not None


def test_the_readmes_links_become_the_sites() -> None:
    text = "[a page](docs/proof.md#x), [a file](tools/bench), [away](https://example.org/a)"
    assert from_readme(text) == (
        "[a page](proof.md#x), [a file](../tools/bench), [away](https://example.org/a)"
    )
