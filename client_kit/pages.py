"""What the loopback listener shows the browser once the login is decided.

By default a small page of the kit's own. An application can bring its own page (a whole
HTML document, like google-auth-oauthlib's ``success_message``) or send the browser to a
URL of its choice (its web site's "you are logged in" page), for success and failure apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from client_kit.errors import ConfigurationError


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
