"""How ``mb-oauth`` words and shapes its answers: one type per field in every command,
errors as JSON under ``--json``, and a ``status`` that says what it did not check."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from client_kit.errors import KitError


def epoch(timestamp: float | None) -> int | None:
    """``expires_at`` in every command: whole seconds since 1970 (UTC), or null."""
    return None if timestamp is None else round(timestamp)


def when(timestamp: float | None) -> str:
    if timestamp is None:
        return "unknown"
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def error_json(exc: KitError) -> str:
    """``{"error": {...}}`` on stdout, for scripts that asked for JSON."""
    data = {
        "error": {
            "type": type(exc).__name__,
            "message": str(exc),
            "exit_code": exc.exit_code,
        }
    }
    return json.dumps(data, indent=2, sort_keys=True)


def status_data(info: dict[str, Any]) -> dict[str, Any]:
    """``status --json``: ``expires_at`` an integer, the revoked access token said as such."""
    data = dict(info)
    if data.get("logged_in"):
        data["expires_at"] = epoch(data.get("expires_at"))
        data["access_token_revoked"] = data["expires_at"] == 0
        data.setdefault("checked", False)
    return data


def status_text(d: dict[str, Any]) -> str:
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
        f"user:     {d.get('username') or 'unknown'}",
        f"scopes:   {' '.join(d['scopes'])}",
        f"access:   {_access(d)}",
        f"refresh:  {_refresh(d)}",
    ]
    return "\n".join(lines)


def _access(d: dict[str, Any]) -> str:
    if d.get("access_token_revoked"):
        return "revoked (the next use gets a new one with the refresh token)"
    if d.get("expires_at") is None:
        return "valid (the service did not say until when)"
    if d["expired"]:
        return f"expired at {when(d['expires_at'])}"
    return f"expires {when(d['expires_at'])} (in {d['expires_in']} s)"


def _refresh(d: dict[str, Any]) -> str:
    if not d["has_refresh_token"]:
        return "none stored (log in again when the access token expires)"
    if not d.get("checked"):
        return "stored; not checked with the service (`mb-oauth status --check` asks it)"
    if d.get("valid"):
        return "stored; the service accepts this login (checked now)"
    return f"stored, but the service no longer accepts this login: {d.get('problem')}"
