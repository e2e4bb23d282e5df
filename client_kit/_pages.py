"""What the loopback listener shows the browser once the login is decided.

By default a small page of the kit's own (self-contained, every value HTML-escaped). An
application can bring its own page (a whole HTML document, like google-auth-oauthlib's
``success_message``) or send the browser to a URL of its choice (its web site's "you are
logged in" page), for success and failure apart.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from client_kit._errors import ConfigurationError


@dataclass(frozen=True)
class LoopbackPages:
    """The application's pages after the redirect (any left as None: the kit's own)."""

    success_html: str | None = None
    failure_html: str | None = None
    success_url: str | None = None
    failure_url: str | None = None

    def __post_init__(self) -> None:
        for name in ("success", "failure"):
            if getattr(self, f"{name}_html") and getattr(self, f"{name}_url"):
                raise ConfigurationError(f"give {name}_html or {name}_url, not both")
            url = getattr(self, f"{name}_url")
            if url and urlsplit(url).scheme not in ("https", "http"):
                raise ConfigurationError(f"{name}_url must be an http(s) URL, got {url!r}")

    def html(self, ok: bool) -> bytes | None:
        page = self.success_html if ok else self.failure_html
        return page.encode() if page is not None else None

    def url(self, ok: bool) -> str | None:
        return self.success_url if ok else self.failure_url


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em;
color:#222}}h1{{font-size:1.5em;color:{colour}}}code{{background:#eee;padding:0 .2em}}</style>
</head><body><h1>{title}</h1>{body}</body></html>
"""


def render_page(title: str, lines: Sequence[str], ok: bool) -> bytes:
    """A small page; every argument is escaped here, so callers pass plain text."""
    body = "".join(f"<p>{html.escape(line)}</p>" for line in lines)
    colour = "#2a7a2a" if ok else "#a02020"
    return _PAGE.format(title=html.escape(title), body=body, colour=colour).encode()


def failure_page(params: dict[str, str], app_name: str) -> bytes:
    lines = [f"The service answered: {params.get('error', '')}."]
    if params.get("error_description"):
        lines.append(params["error_description"])
    lines.append(f"Return to {app_name} for details.")
    return render_page("Login failed", lines, ok=False)
