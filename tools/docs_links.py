"""An MkDocs hook: links from a page to the repository's own files, checked and resolved.

The pages link to source files (`../steps/http/layer.py#L42`) so that they read well where
the repository is browsed. MkDocs checks only links between pages; these leave its folder,
so it cannot. This hook checks them: the file must exist and a `#L<n>` anchor must be within
it, or the build (strict, in CI) fails with the page and the link. On the site a checked link
points at `extra.source_url` (the repository's browsable address) when mkdocs.yml names one,
and becomes its plain text otherwise, never a dead link.

The README is the site's home page (written once, read on the repository's front page and on
the site): its links to `docs/` pages become the site's, its links to other files are checked
like the pages' own.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.hooks.docs_links")

#: The page the README becomes on the site.
HOME = "index.md"

#: A Markdown link from the README: its target, relative to the repository's root.
_README_LINK = re.compile(r"\]\((?!https?:|mailto:|#)(?P<path>[^)\s]+)\)")

#: A Markdown link whose target climbs out of the docs folder: text, path, line.
_LINK = re.compile(r"\[(?P<text>[^\]]+)\]\((?P<path>\.\./[^)#\s]+)(?:#L(?P<line>\d+))?\)")


def broken(target: Path, line: str | None) -> str | None:
    """Why a link to `target` (at `line`, if any) is broken; None when it is sound."""
    if not target.is_file():
        return "no such file"
    if line is not None:
        count = len(target.read_text(errors="replace").splitlines())
        if not 1 <= int(line) <= count:
            return f"line {line} is past the file's {count} lines"
    return None


def resolve(
    markdown: str, page_dir: Path, root: Path, source_url: str | None
) -> tuple[str, list[str]]:
    """`markdown` with its repository links made site links, and the broken ones described."""
    problems: list[str] = []

    def replace(match: re.Match[str]) -> str:
        target = (page_dir / match["path"]).resolve()
        relative = target.relative_to(root).as_posix() if target.is_relative_to(root) else None
        why = "outside the repository" if relative is None else broken(target, match["line"])
        if why is not None:
            problems.append(f"{match[0]}: {why}")
            return match["text"]
        if not source_url:
            return match["text"]
        anchor = f"#L{match['line']}" if match["line"] else ""
        return f"[{match['text']}]({source_url.rstrip('/')}/{relative}{anchor})"

    return _LINK.sub(replace, markdown), problems


def from_readme(markdown: str) -> str:
    """The README's links as links of a page in the docs folder."""

    def replace(match: re.Match[str]) -> str:
        path = match["path"]
        return f"]({path.removeprefix('docs/')})" if path.startswith("docs/") else f"](../{path})"

    return _README_LINK.sub(replace, markdown)


def on_files(files: Any, *, config: Any) -> Any:
    """MkDocs' event: the README added as the home page."""
    from mkdocs.structure.files import File  # MkDocs is there whenever it runs this hook

    readme = Path(config["config_file_path"]).resolve().parent / "README.md"
    files.append(File.generated(config, HOME, content=from_readme(readme.read_text())))
    return files


def on_page_markdown(markdown: str, *, page: Any, config: Any, files: Any) -> str:
    """MkDocs' event: each page's Markdown before it becomes HTML."""
    docs_dir = Path(config["docs_dir"]).resolve()
    root = Path(config["config_file_path"]).resolve().parent
    page_dir = (docs_dir / page.file.src_uri).parent
    source_url = (config.get("extra") or {}).get("source_url")
    text, problems = resolve(markdown, page_dir, root, source_url)
    for problem in problems:
        log.warning(
            "%s links to a repository file that is not there: %s", page.file.src_uri, problem
        )
    return text
