"""Keep secrets, codes and tokens out of logs, including httpx's and httpcore's own.

Two layers: every secret the kit handles is registered and masked wherever it appears, and
token-like fields (``code=``, ``access_token``, ``Authorization: Bearer``, ...) are masked by
pattern, so values the kit never saw (a server's error echo) are hidden too.
"""

from __future__ import annotations

import logging
import re
import threading

MASK = "***"

_FIELDS = (
    "access_token|refresh_token|id_token|token|code|code_verifier|client_secret|password"
    "|csrf_token|state"
)
_PATTERNS = (
    # form bodies and query strings: code=abc&state=...
    re.compile(rf"(?i)\b({_FIELDS})=([^&\s'\"<>]+)"),
    # JSON: "access_token": "abc"
    re.compile(rf"(?i)([\"']?(?:{_FIELDS})[\"']?\s*:\s*[\"'])([^\"']+)"),
    # headers: Authorization: Bearer abc / Basic abc
    re.compile(r"(?i)\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=-]+)"),
)

_secrets: set[str] = set()
_lock = threading.Lock()
_MAX_SECRETS = 1024
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


def register(*values: str | None) -> None:
    """Remember secret values so they are masked wherever they appear in a log record."""
    with _lock:
        for value in values:
            if value and len(value) >= 4:
                if len(_secrets) >= _MAX_SECRETS:
                    _secrets.clear()
                _secrets.add(value)


def redact(text: str) -> str:
    """Mask every registered secret and every token-like field of ``text``."""
    with _lock:
        known = sorted(_secrets, key=len, reverse=True)
    for value in known:
        if value in text:
            text = text.replace(value, MASK)
    text = _PATTERNS[0].sub(lambda m: f"{m.group(1)}={MASK}", text)
    text = _PATTERNS[1].sub(lambda m: f"{m.group(1)}{MASK}", text)
    return _PATTERNS[2].sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)


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


def install() -> None:
    """Attach the filter to the kit's and the HTTP libraries' loggers (idempotent)."""
    global _installed
    with _lock:
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
