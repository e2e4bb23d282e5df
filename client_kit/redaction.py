"""The one place that knows which values are secrets and how they are masked.

It lives in the kit because the kit is the lowest layer of the base install: the kit's log
filter, the suite's HTTP evidence (`steps.http`) and the reports' last safety pass
(`steps.reports.redact`) all import it, so the three share one vocabulary and one masker.

Masking has two layers: values seen or registered are masked wherever they appear (`Secrets`),
and values after a secret field name (``code=``, ``"access_token": ...``, ``Bearer ...``) are
masked by pattern, so values nobody registered (a server's error echo) are hidden too.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterable

#: What the log filter and the reports' last pass write in place of a secret.
MASK = "***"
#: Field names whose values are secrets wherever they appear (also with a form prefix, as in
#: `login.password`): URLs, form and JSON bodies, HTML inputs, log lines, report files.
SECRET_FIELDS = frozenset(
    {
        "client_secret", "code", "access_token", "refresh_token", "id_token", "token",
        "password", "csrf_token", "csrf", "csrf_session_key", "code_verifier", "session",
        "oob_code",
    }
)  # fmt: skip
#: Values kept out of logs though evidence shows them: a report must show that `state` came
#: back unchanged (spec rules check it), a log has no such need.
LOG_ONLY_FIELDS = frozenset({"state"})
#: Shorter values cannot be masked without garbling ordinary words.
MIN_SECRET_LENGTH = 4


def is_secret_name(name: str) -> bool:
    """Names whose values are secrets (also with a form prefix, as in `login.password`)."""
    return name.lower().rsplit(".", 1)[-1] in SECRET_FIELDS


def hint(value: str) -> str:
    """The evidence's mask, which still lets a reader tell values apart: `abcd…(32)`."""
    if len(value) >= 16:
        keep = 4
    elif len(value) >= 8:
        keep = 2
    else:
        keep = 0
    return f"{value[:keep]}…({len(value)})"


def is_masked(value: str) -> bool:
    """A value already masked (by `hint` or `MASK`, or a stand-in that says so), or too short
    to be a secret worth masking."""
    lowered = value.lower()
    return (
        len(value) < MIN_SECRET_LENGTH
        or "*" in value
        or "…" in value
        or "%E2%80%A6" in value.upper()
        or "\\u2026" in value
        or "mask" in lowered
        or "redact" in lowered
    )


class Secrets:
    """Secret values seen or registered, so they can be masked wherever they show up again."""

    def __init__(self, min_length: int = MIN_SECRET_LENGTH, limit: int = 0) -> None:
        self._values: set[str] = set()
        self._lock = threading.Lock()
        self.min_length = min_length
        self.limit = limit  # 0: unbounded

    def add(self, *values: str | None) -> None:
        """Remember values worth masking (tiny values would garble unrelated text)."""
        with self._lock:
            for value in values:
                if value and len(value) >= self.min_length:
                    if self.limit and len(self._values) >= self.limit:
                        self._values.clear()
                    self._values.add(value)

    def values(self) -> list[str]:
        """The known values, longest first so no partial replacement leaks a tail."""
        with self._lock:
            return sorted(self._values, key=len, reverse=True)

    def scrub(self, text: str, mask: Callable[[str], str] = hint) -> str:
        """Replace every known value in text by its mask."""
        for value in self.values():
            if value in text:
                text = text.replace(value, mask(value))
        return text


class FieldMasker:
    """Masks the value after a secret field name or an auth scheme, in any text."""

    def __init__(
        self, fields: Iterable[str], *, ignore_case: bool = False, auth_min_length: int = 12
    ) -> None:
        keys = "|".join(sorted(fields, key=len, reverse=True))
        flags = re.IGNORECASE if ignore_case else 0
        # key=value in query strings and form bodies (also percent-encoded '=' inside a URL).
        self._form = re.compile(
            rf"((?:(?<![\w-])|(?<=%3F)|(?<=%26)|(?<=%3f))(?:{keys})(?:=|%3D|%3d))([^&\s\"'<>;#]+)",
            flags,
        )
        # "key": "value" in JSON, in JSON inside a JSON string, and in HTML-escaped JSON.
        quote = r"""(?:\\*"|&quot;|&#34;|')"""
        self._json = re.compile(
            rf"({quote}(?:{keys}){quote}\s*:\s*{quote})((?:[^\"'\\&<>\s]|\\u2026)+)", flags
        )
        # key='value' as Python shows keyword arguments and dataclasses in tracebacks.
        self._repr = re.compile(rf"((?<![\w-])(?:{keys})=['\"])([^'\"\s]+)", flags)
        # Cookie values in a header shown as text ('set-cookie': 'session=...'): every cookie
        # is a secret (a session, often a CSRF token inside it), whatever its name.
        self._cookie = re.compile(r"""((?:set-)?cookie["']?\s*[:=]\s*["']?)([^"'\r\n]+)""", re.I)
        # Authorization header values; long enough not to catch prose such as "Bearer tokens".
        self._auth = re.compile(
            rf"\b(Bearer|Basic)(\s+)(?!realm\b|error\b|scope\b)"
            rf"([A-Za-z0-9._~+/-]{{{auth_min_length},}}=*)",
            flags,
        )

    def __call__(self, text: str) -> str:
        text = self._form.sub(_keep_masked, text)
        text = self._json.sub(_keep_masked, text)
        text = self._repr.sub(_keep_masked, text)
        text = self._cookie.sub(_mask_cookies, text)
        return self._auth.sub(lambda m: m.group(1) + m.group(2) + MASK, text)


_COOKIE_PAIR = re.compile(r"(^|;\s*)([^=;\s]+=)([^;]+)")
#: Attributes of a Set-Cookie header: their values are not secrets.
_COOKIE_ATTRIBUTES = frozenset({"path=", "domain=", "expires=", "max-age=", "samesite="})


def _mask_cookies(match: re.Match[str]) -> str:
    """Mask the value of every cookie of a Cookie or Set-Cookie header shown as text."""

    def pair(found: re.Match[str]) -> str:
        name, value = found.group(2), found.group(3)
        if name.lower() in _COOKIE_ATTRIBUTES or is_masked(value):
            return found.group(0)
        return found.group(1) + name + MASK

    return match.group(1) + _COOKIE_PAIR.sub(pair, match.group(2))


def _keep_masked(match: re.Match[str]) -> str:
    """Replace the value after a secret key unless it is masked already."""
    value = match.group(2)
    return match.group(0) if is_masked(value) else match.group(1) + MASK


# --- the kit's logs ---------------------------------------------------------------------------

_REGISTRY = Secrets(limit=1024)
#: Logs mask more eagerly than reports: any case, short bearer values, the state too.
_LOG_FIELDS = FieldMasker(SECRET_FIELDS | LOG_ONLY_FIELDS, ignore_case=True, auth_min_length=1)
#: loggers whose records may carry request details; filters apply per logger, not to children
LOGGERS = (
    "client_kit",
    "httpx",
    "httpcore",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
    "hpack",
    "hpack.hpack",
    "h2",
    "urllib3",
)


#: URLs a person is shown to open (authorization URLs): logs show them without their query
_ANNOUNCED = Secrets(min_length=1, limit=64)


def register(*values: str | None) -> None:
    """Remember secret values so they are masked wherever they appear in a log record."""
    _REGISTRY.add(*values)


def announce(url: str) -> None:
    """``url`` is shown to a person to open (an authorization URL): never masked there, and
    shown in logs without its query.

    A log masks the URL's ``state``; with ``--debug`` such a masked copy would stand on the
    same terminal as the real URL, look just like it, and fail the login if opened. So the
    only whole copy a person sees is the one to open.
    """
    _ANNOUNCED.add(url)


def _without_query(url: str) -> str:
    return url.split("?", 1)[0] + "?… (the login URL, shown whole to open, not logged)"


def redact(text: str) -> str:
    """Mask every registered secret and every token-like field of ``text``."""
    text = _ANNOUNCED.scrub(text, _without_query)
    return _LOG_FIELDS(_REGISTRY.scrub(text, lambda _: MASK))


class RedactingFilter(logging.Filter):
    """Rewrites each record's message with :func:`redact` (it never drops records)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: leave it to logging to report
            return True
        record.msg = redact(message)
        record.args = None
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


_FILTER = RedactingFilter()
_installed = False
_install_lock = threading.Lock()


def install() -> None:
    """Attach the filter to the kit's and the HTTP libraries' loggers (idempotent)."""
    global _installed
    with _install_lock:
        if _installed:
            return
        _installed = True
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)


def get_logger(name: str) -> logging.Logger:
    """A kit logger with the filter attached (records of children skip parents' filters)."""
    install()
    logger = logging.getLogger(name)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
    return logger
