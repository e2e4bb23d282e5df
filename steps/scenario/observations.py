"""Observations: facts about the target the spec leaves open (info-level rules and the
section 9 question of which description of the token endpoints the deployment follows)."""

from __future__ import annotations

import re
import string
from typing import Any

SPEC_TOKEN_FIELDS = ("access_token", "expires_in", "token_type", "refresh_token")
DESCRIPTION_KEYS = ("pkce", "revocation_endpoint", "userinfo_post_body", "token_type_mac")


def alphabet(value: str) -> str:
    """A short name for the characters a token uses."""
    if re.fullmatch(r"[0-9a-f]+", value):
        return "hex (lower case)"
    if re.fullmatch(r"[A-Za-z0-9_-]+", value):
        return "base64url [A-Za-z0-9_-]"
    if re.fullmatch(r"[A-Za-z0-9+/]+=*", value):
        return "base64 [A-Za-z0-9+/=]"
    extra = sorted(set(value) - set(string.ascii_letters + string.digits))
    return "alphanumeric plus " + "".join(extra)


class Observations:
    """What the run observed; the delta since the last take is attached to each scenario's
    report, so results can be merged from several pytest-xdist workers."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {"description": dict.fromkeys(DESCRIPTION_KEYS)}
        self._delta: dict[str, Any] = {}

    def record(self, key: str, value: Any) -> None:
        """Record one observed fact."""
        self.data[key] = value
        self._delta[key] = value

    def describe(self, key: str, value: bool) -> None:
        """Record which description (section 9) the deployment follows on one item."""
        self.data["description"][key] = value
        self._delta.setdefault("description", {})[key] = value

    def token_format(self, kind: str, value: str | None) -> None:
        """Length and alphabet of a code or token."""
        if value:
            self.record(f"{kind}_length", len(value))
            self.record(f"{kind}_alphabet", alphabet(value))

    def token_response(self, body: dict[str, Any]) -> None:
        """What a successful token response says beyond the spec's fields."""
        if "token_type" in body:
            self.record("token_type", body["token_type"])
        self.record("token_response_extra_fields", sorted(set(body) - set(SPEC_TOKEN_FIELDS)))
        self.token_format("access_token", body.get("access_token"))
        self.token_format("refresh_token", body.get("refresh_token"))

    def take_delta(self) -> dict[str, Any]:
        """What was observed since the last call."""
        delta, self._delta = self._delta, {}
        return delta


def merge_observations(into: dict[str, Any], delta: dict[str, Any]) -> None:
    """Merge a delta (from any worker) into the run's observations."""
    for key, value in delta.items():
        if key == "description":
            described = into.setdefault("description", dict.fromkeys(DESCRIPTION_KEYS))
            described.update(value)
        else:
            into[key] = value
