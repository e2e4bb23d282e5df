"""The last line of defence: no secret, code or token may reach a report file unmasked, nor a
control character of the deployment's unescaped.

The plugin masks evidence as it records it; this module does not trust that. It masks the
profile's secrets (and their encoded forms: percent, JSON, base64 at its three alignments),
every token value it can find in the recorded evidence, and anything that looks like a token
after a well-known key, in every report file and in pytest's output. The masker is the kit's
`Redactor` (`client_kit.redaction`) knowing those forms (steps/safety/secret_forms.py), as the
evidence's does: the same value gets the same mask everywhere.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote_plus, urlsplit

from client_kit.redaction import MIN_SECRET_LENGTH, Redactor, is_masked, is_secret_name
from steps.safety.secret_forms import EncodedSecrets
from steps.safety.text import json_escaped, shown, terminal_safe

#: Files the last pass reads; anything else in a report directory is left alone.
TEXT_SUFFIXES = {".json", ".xml", ".html", ".htm", ".txt", ".log", ".toml", ".md", ".csv"}
#: pytest's output as the terminal showed it (steps/reports/stream.py writes it): the one
#: report file that may keep colour sequences.
PYTEST_LOG = "pytest-output.txt"


def last_pass(secrets: Iterable[str]) -> Redactor:
    """The reports' masker: the given secrets in every encoded form, and whatever follows a
    secret field name or an auth scheme."""
    redactor = EncodedSecrets()
    redactor.learn(*secrets)
    return redactor


def basic_credentials(client_id: str, secret: str) -> set[str]:
    """HTTP Basic forms of a client's credentials (plain and RFC 6749 2.3.1 form-encoded)."""
    pairs = {f"{client_id}:{secret}", f"{quote_plus(client_id)}:{quote_plus(secret)}"}
    return {base64.b64encode(p.encode()).decode() for p in pairs}


def profile_secrets(profile: Mapping[str, Any]) -> set[str]:
    """Client secrets, the user's password and Basic credentials named by a profile."""
    secrets: set[str] = set()
    password = (profile.get("user") or {}).get("password")
    if password:
        secrets.add(str(password))
    for client in (profile.get("clients") or {}).values():
        secret = client.get("client_secret") if isinstance(client, Mapping) else None
        if secret:
            secrets.add(str(secret))
            secrets |= basic_credentials(str(client.get("client_id", "")), str(secret))
    return {s for s in secrets if len(s) >= MIN_SECRET_LENGTH}


def _pairs_from_text(text: str) -> Iterator[tuple[str, str]]:
    """Key/value pairs of a form body, a query string or a JSON object."""
    text = text.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            yield from ((str(k), str(v)) for k, v in data.items() if isinstance(v, str))
            return
    yield from parse_qsl(text, keep_blank_values=False)


def _pairs_from_exchange(exchange: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    for part in ("request", "response"):
        message = exchange.get(part) or {}
        if not isinstance(message, Mapping):
            continue
        url = str(message.get("url") or "")
        yield from parse_qsl(urlsplit(url).query)
        body = message.get("body")
        if isinstance(body, Mapping):
            yield from ((str(k), str(v)) for k, v in body.items() if isinstance(v, str))
        elif isinstance(body, str):
            yield from _pairs_from_text(body)
        headers = message.get("headers") or {}
        items = headers.items() if isinstance(headers, Mapping) else headers
        for name, value in items:
            yield from _pairs_from_header(str(name).lower(), str(value))


def _pairs_from_header(name: str, value: str) -> Iterator[tuple[str, str]]:
    if name == "location":
        yield from parse_qsl(urlsplit(value).query)
    elif name == "authorization" and " " in value:
        scheme, credentials = value.split(" ", 1)
        yield ("token", credentials.strip())
        if scheme.lower() == "basic":
            yield from _decoded_basic(credentials.strip())


def _decoded_basic(credentials: str) -> Iterator[tuple[str, str]]:
    try:
        decoded = base64.b64decode(credentials, validate=True).decode()
    except ValueError:
        return
    if ":" in decoded:
        yield ("client_secret", decoded.split(":", 1)[1])


def harvest_tokens(results: Mapping[str, Any]) -> set[str]:
    """Every unmasked secret-looking value seen in the recorded evidence of a results.json."""
    found: set[str] = set()
    for scenario in results.get("scenarios") or ():
        for exchange in scenario.get("evidence") or ():
            if not isinstance(exchange, Mapping):
                continue
            for key, value in _pairs_from_exchange(exchange):
                if is_secret_name(key) and value and not is_masked(value):
                    found.add(value)
    return found


def mask_file(path: Path, redactor: Redactor) -> bool:
    """Mask one text file in place, its control characters shown escaped (a JSON file's as
    escaped text, pytest's output keeping its colours); True when something changed."""
    original = path.read_text(encoding="utf-8", errors="surrogateescape")
    masked = _shown_in(path, redactor.redact(original))
    if masked == original:
        return False
    path.write_text(masked, encoding="utf-8", errors="surrogateescape")
    return True


def _shown_in(path: Path, text: str) -> str:
    if path.suffix.lower() == ".json":
        return json_escaped(text)
    return terminal_safe(text) if path.name == PYTEST_LOG else shown(text)


def report_files(report_dir: Path, exclude: Iterable[Path] = ()) -> list[Path]:
    """The text files of a report directory, minus the excluded ones (the profile)."""
    skip = {p.resolve() for p in exclude}
    return sorted(
        p
        for p in report_dir.rglob("*")
        if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES and p.resolve() not in skip
    )


def mask_tree(report_dir: Path, redactor: Redactor, exclude: Iterable[Path] = ()) -> list[Path]:
    """Mask every report file under report_dir; the files that needed masking are returned."""
    return [p for p in report_files(report_dir, exclude) if mask_file(p, redactor)]
