"""The kit's logs, masked: a filter on the kit's and the HTTP libraries' loggers passes every
record through one `Redactor` (redaction.py), more eager than the reports' (any case, short
bearer values, the `state` too). The kit registers the secrets it handles as it meets them."""

from __future__ import annotations

import logging
import threading

from client_kit.redaction import LOG_ONLY_FIELDS, SECRET_FIELDS, Redactor

_LOG = Redactor(SECRET_FIELDS | LOG_ONLY_FIELDS, ignore_case=True, auth_min_length=1, limit=1024)
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
#: URLs a person is shown to open (authorization URLs): logs show them without their query.
_ANNOUNCED: list[str] = []
_ANNOUNCED_LIMIT = 64
_announced_lock = threading.Lock()


def register(*values: str | None) -> None:
    """Remember secret values so they are masked wherever they appear in a log record."""
    _LOG.learn(*values)


def announce(url: str) -> None:
    """``url`` is shown to a person to open (an authorization URL): never masked there, and
    shown in logs without its query.

    A log masks the URL's ``state``; with ``--debug`` such a masked copy would stand on the
    same terminal as the real URL, look just like it, and fail the login if opened. So the
    only whole copy a person sees is the one to open.
    """
    with _announced_lock:
        if url and url not in _ANNOUNCED:
            del _ANNOUNCED[: max(0, len(_ANNOUNCED) + 1 - _ANNOUNCED_LIMIT)]
            _ANNOUNCED.append(url)


def _without_queries(text: str) -> str:
    with _announced_lock:
        urls = sorted(_ANNOUNCED, key=len, reverse=True)
    for url in urls:
        if url in text:
            shown = url.split("?", 1)[0] + "?… (the login URL, shown whole to open, not logged)"
            text = text.replace(url, shown)
    return text


def redact(text: str) -> str:
    """Mask every registered secret and every token-like field of ``text``."""
    return _LOG.redact(_without_queries(text))


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
