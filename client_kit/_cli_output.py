"""How ``mb-oauth`` words and shapes its answers: one type per field in every command,
errors as JSON under ``--json``, and a ``status`` that says what it did not check."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from client_kit._cli_exit import exit_code
from client_kit._errors import KitError
from client_kit._safe_text import NAME_LIMIT, WORD_LIMIT, clean
from client_kit._status import LoginStatus

Data = Mapping[str, object]
#: user-information fields shown on the first line
SHOWN_FIRST = ("sub", "username")


@dataclass(frozen=True)
class Check:
    """What ``status --check`` learnt by using the login once."""

    valid: bool
    problem: str | None = None


def epoch(timestamp: float | None) -> int | None:
    """``expires_at`` in every command: whole seconds since 1970 (UTC), or null."""
    return None if timestamp is None else round(timestamp)


def when(timestamp: object) -> str:
    if not isinstance(timestamp, int | float):
        return "unknown"
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def error_json(exc: KitError, message: str | None = None) -> str:
    """``{"error": {...}}`` on stdout, for scripts that asked for JSON."""
    data = {
        "error": {
            "type": type(exc).__name__,
            "message": message or str(exc),
            "exit_code": exit_code(exc),
        }
    }
    return json.dumps(data, indent=2, sort_keys=True)


def login_text(d: Data) -> str:
    who = clean(d.get("username") or "unknown user", NAME_LIMIT)
    return (
        f"Logged in as {who} ({', '.join(_words(d.get('scopes')))}); tokens stored in {d['store']}."
    )


def refresh_text(d: Data) -> str:
    return f"Refreshed; the new access token expires {when(d['expires_at'])}."


def userinfo_text(d: Data) -> str:
    """The service's user information, one clean line per field (it is the service's text)."""
    name = clean(d.get("username") or d.get("sub"), NAME_LIMIT)
    fields = sorted((k, v) for k, v in d.items() if k not in SHOWN_FIRST)
    rest = [f"{clean(k, WORD_LIMIT)}: {clean(v)}" for k, v in fields]
    return "\n".join([f"user: {name}", *rest])


def status_data(status: LoginStatus, check: Check | None = None) -> dict[str, object]:
    """``status --json``: ``expires_at`` an integer, the revoked access token said as such,
    and whether the login was checked with the service."""
    data: dict[str, object] = dict(status.as_dict())
    if not status.logged_in:
        return data
    data["expires_at"] = epoch(status.expires_at)
    data["access_token_revoked"] = data["expires_at"] == 0
    data["checked"] = check is not None
    if check is not None:
        data["valid"] = check.valid
        if check.problem is not None:
            data["problem"] = check.problem
    return data


def status_text(d: Data) -> str:
    service = d["service"]
    where = service if service == d["base_url"] else f"{service} ({d['base_url']})"
    lines = [
        f"service:  {where}",
        f"client:   {d['client_id']}  account: {d['account']}",
        f"store:    {d['store']}",
    ]
    if not d["logged_in"]:
        return "\n".join([*lines, "Not logged in. Run `mb-oauth login`."])
    lines += [
        f"user:     {clean(d.get('username') or 'unknown', NAME_LIMIT)}",
        f"scopes:   {' '.join(_words(d.get('scopes')))}",
        f"access:   {_access(d)}",
        f"refresh:  {_refresh(d)}",
    ]
    return "\n".join(lines)


def _words(value: object) -> list[str]:
    return [clean(item, WORD_LIMIT) for item in value] if isinstance(value, list | tuple) else []


def _access(d: Data) -> str:
    if d.get("access_token_revoked"):
        return "revoked (the next use gets a new one with the refresh token)"
    if d.get("expires_at") is None:
        return "valid (the service did not say until when)"
    if d["expired"]:
        return f"expired at {when(d['expires_at'])}"
    return f"expires {when(d['expires_at'])} (in {d['expires_in']} s)"


def _refresh(d: Data) -> str:
    if not d["has_refresh_token"]:
        return "none stored (log in again when the access token expires)"
    if not d.get("checked"):
        return "stored; not checked with the service (`mb-oauth status --check` asks it)"
    if d.get("valid"):
        return "stored; the service accepts this login (checked now)"
    return f"stored, but the service no longer accepts this login: {d.get('problem')}"
