"""The one place that knows which values are secrets and how they are masked: `Redactor`.

It lives in the kit because the kit is the lowest layer of the base install. Every pass that
writes text a person or a file may see calls a Redactor: the kit's log filter (logs.py), the
suite's HTTP evidence (steps/http/evidence.py), the messages of its results
(steps/run/payload.py) and the reports' last pass over every report file and over pytest's
output (steps/reports/redact.py). One vocabulary of secret names, one mask.

The mask is `***-3f9a`: a keyed fingerprint of the value (HMAC-SHA-256 under a random key,
four hex digits). It shows no part of the secret, nor its length, and without the key (kept in
memory, never written) it cannot be checked against a guess; yet the same value gets the same
mask, so a reader of the evidence can tell that the refresh token sent came back, or that two
codes differ. The processes of one conformance run share the key (`share_mask_key`: the runner
hands it to pytest, pytest's controller to its workers), so a value is masked alike in every
report of the run. `-` keeps the mask whole in a URL, a form, a cookie or JSON.

Masking has two layers: values learnt (seen in traffic, registered, named by the profile) are
masked wherever they appear, and values after a secret field name (``code=``,
``"access_token": ...``, ``Bearer ...``) are masked by pattern, so that values nobody learnt (a
server's error echo) are hidden too.
"""

from __future__ import annotations

import functools
import hmac
import html
import json
import os
import re
import threading
from collections.abc import Callable, Iterable, MutableMapping
from urllib.parse import quote, quote_plus

#: How every mask starts (a value containing `*` counts as masked already).
MASK = "***"
#: Hex digits of the fingerprint a mask ends with.
FINGERPRINT = 4
#: Through it the processes of one run share the key of their masks (hex).
MASK_KEY_ENV = "MB_OAUTH_MASK_KEY"
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


@functools.cache
def mask_key() -> bytes:
    """This process's key: the run's (MASK_KEY_ENV, from the process that started this one),
    else a random one."""
    try:
        shared = bytes.fromhex(os.environ.get(MASK_KEY_ENV, ""))
    except ValueError:
        shared = b""
    return shared if len(shared) >= 16 else os.urandom(16)


def share_mask_key(env: MutableMapping[str, str]) -> None:
    """Let the processes started with `env` mask values as this one does."""
    env[MASK_KEY_ENV] = mask_key().hex()


def mask(value: str, key: bytes | None = None) -> str:
    """The mask of a secret: `***-` and a keyed fingerprint of the value."""
    data = value.encode("utf-8", "surrogatepass")
    digest = hmac.new(key or mask_key(), data, "sha256").hexdigest()
    return f"{MASK}-{digest[:FINGERPRINT]}"


def is_masked(value: str) -> bool:
    """A value already masked (or a stand-in that says so), or too short to be a secret worth
    masking."""
    lowered = value.lower()
    return (
        len(value) < MIN_SECRET_LENGTH or "*" in value or "mask" in lowered or "redact" in lowered
    )


def encoded_forms(secret: str) -> set[str]:
    """The forms a secret takes in URLs, form bodies, JSON strings and HTML."""
    escaped = json.dumps(secret)[1:-1]
    return {
        secret,
        quote(secret, safe=""),
        quote_plus(secret),
        html.escape(secret),
        escaped,
        html.escape(escaped),
    }


class FieldMasker:
    """Masks the value after a secret field name or an auth scheme, in any text."""

    def __init__(
        self,
        fields: Iterable[str],
        *,
        ignore_case: bool = False,
        auth_min_length: int = 12,
        mask: Callable[[str], str] = mask,
    ) -> None:
        self._mask = mask
        keys = "|".join(sorted(fields, key=len, reverse=True))
        flags = re.IGNORECASE if ignore_case else 0
        # key=value in query strings and form bodies (also percent-encoded '=' inside a URL).
        self._form = re.compile(
            rf"((?:(?<![\w-])|(?<=%3F)|(?<=%26)|(?<=%3f))(?:{keys})(?:=|%3D|%3d))([^&\s\"'<>;#]+)",
            flags,
        )
        # "key": "value" in JSON, in JSON inside a JSON string, and in HTML-escaped JSON.
        quote = r"""(?:\\*"|&quot;|&#34;|')"""
        self._json = re.compile(rf"({quote}(?:{keys}){quote}\s*:\s*{quote})([^\"'\\&<>\s]+)", flags)
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
        text = self._form.sub(self._keep_masked, text)
        text = self._json.sub(self._keep_masked, text)
        text = self._repr.sub(self._keep_masked, text)
        text = self._cookie.sub(self._cookies, text)
        return self._auth.sub(lambda m: m.group(1) + m.group(2) + self._mask(m.group(3)), text)

    def _keep_masked(self, match: re.Match[str]) -> str:
        """Mask the value after a secret key unless it is masked already."""
        value = match.group(2)
        return match.group(0) if is_masked(value) else match.group(1) + self._mask(value)

    def _cookies(self, match: re.Match[str]) -> str:
        """Mask the value of every cookie of a Cookie or Set-Cookie header shown as text."""

        def pair(found: re.Match[str]) -> str:
            name, value = found.group(2), found.group(3)
            if name.lower() in _COOKIE_ATTRIBUTES or is_masked(value):
                return found.group(0)
            return found.group(1) + name + self._mask(value)

        return match.group(1) + _COOKIE_PAIR.sub(pair, match.group(2))


_COOKIE_PAIR = re.compile(r"(^|;\s*)([^=;\s]+=)([^;]+)")
#: Attributes of a Set-Cookie header: their values are not secrets.
_COOKIE_ATTRIBUTES = frozenset({"path=", "domain=", "expires=", "max-age=", "samesite="})


class Redactor:
    """The masker every pass calls: it masks the values it has learnt wherever they appear
    (`scrub`) and, in `redact`, the values after a secret field name or an auth scheme too.

    `fields`, `ignore_case` and `auth_min_length` say how eager the patterns are (logs mask
    more eagerly than reports); values shorter than `min_length` are not learnt (they would
    garble ordinary text); past `limit` values (0: no limit) it forgets and starts again."""

    def __init__(
        self,
        fields: Iterable[str] = SECRET_FIELDS,
        *,
        ignore_case: bool = False,
        auth_min_length: int = 12,
        min_length: int = MIN_SECRET_LENGTH,
        limit: int = 0,
        key: bytes | None = None,
    ) -> None:
        self.min_length, self.limit, self._key = min_length, limit, key
        self._masks: dict[str, str] = {}  # a form of a learnt value -> the value's mask
        self._order: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self._fields = FieldMasker(
            fields, ignore_case=ignore_case, auth_min_length=auth_min_length, mask=self.mask
        )

    def mask(self, value: str) -> str:
        """The mask of one value (the same value, the same mask)."""
        return mask(value, self._key)

    def learn(self, *values: str | None, encoded: bool = False) -> None:
        """Remember values to mask wherever they appear; `encoded`: in their URL, JSON and
        HTML forms too, each masked as the value."""
        with self._lock:
            changed = False
            for value in values:
                if not value or len(value) < self.min_length:
                    continue
                forms = encoded_forms(value) if encoded else {value}
                new = {f for f in forms if len(f) >= self.min_length and f not in self._masks}
                if not new:
                    continue
                if self.limit and len(self._masks) >= self.limit:
                    self._masks.clear()
                    new = {f for f in forms if len(f) >= self.min_length}
                shown = self.mask(value)
                self._masks |= dict.fromkeys(new, shown)
                changed = True
            if changed:  # longest first: no partial replacement leaves a tail
                self._order = sorted(self._masks.items(), key=lambda f: len(f[0]), reverse=True)

    def scrub(self, text: str) -> str:
        """Every learnt value in text replaced by its mask."""
        with self._lock:
            order = self._order
        for form, shown in order:
            if form in text:
                text = text.replace(form, shown)
        return text

    def redact(self, text: str) -> str:
        """Both: learnt values first, then what the field names give away."""
        return self._fields(self.scrub(text))
