"""The token set: what a login or a refresh gives, when it expires, how it is stored."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from client_kit._errors import ProtocolError
from client_kit._safe_text import WORD_LIMIT, clean

#: refresh this many seconds before the server's expiry, for clock skew and slow networks
EXPIRY_MARGIN = 60.0


@dataclass(frozen=True)
class TokenSet:
    """Tokens of one grant. Never printed in full: ``repr`` masks them."""

    access_token: str = field(repr=False)
    refresh_token: str | None = field(default=None, repr=False)
    expires_at: float | None = None
    scopes: tuple[str, ...] = ()
    token_type: str = "Bearer"  # noqa: S105 - the scheme name
    obtained_at: float = 0.0
    username: str | None = None

    # -- expiry ------------------------------------------------------------------------

    def expires_in(self, now: float | None = None) -> float | None:
        if self.expires_at is None:
            return None
        return self.expires_at - (time.time() if now is None else now)

    def is_expired(self, now: float | None = None, margin: float = EXPIRY_MARGIN) -> bool:
        """True when the access token should not be used any more (with a margin)."""
        remaining = self.expires_in(now)
        return remaining is not None and remaining <= margin

    def expired_copy(self) -> TokenSet:
        """The same set with the access token marked unusable (after revoking it)."""
        return replace(self, expires_at=0.0)

    # -- building ----------------------------------------------------------------------

    @classmethod
    def from_response(
        cls,
        data: Mapping[str, object],
        *,
        now: float | None = None,
        previous: TokenSet | None = None,
        requested_scopes: tuple[str, ...] = (),
    ) -> TokenSet:
        """Build from a token endpoint's JSON; keep what the answer leaves out."""
        now = time.time() if now is None else now
        access = data.get("access_token")
        if not isinstance(access, str) or not access:
            raise ProtocolError("the token endpoint answered without an access_token")
        token_type = str(data.get("token_type") or "Bearer")
        if token_type.lower() != "bearer":
            kind = clean(token_type, WORD_LIMIT)
            raise ProtocolError(f"unsupported token_type {kind!r}; only bearer is used")
        refresh = data.get("refresh_token")
        if not isinstance(refresh, str) or not refresh:
            refresh = previous.refresh_token if previous else None
        expires_at = _expiry(data.get("expires_in"), now)
        return cls(
            access_token=access,
            refresh_token=refresh,
            expires_at=expires_at,
            scopes=_scopes(data.get("scope"), previous, requested_scopes),
            token_type="Bearer",  # noqa: S106 - the scheme name
            obtained_at=now,
            username=previous.username if previous else None,
        )

    def with_username(self, username: str | None) -> TokenSet:
        return replace(self, username=username)

    # -- storage -----------------------------------------------------------------------

    def to_json(self) -> str:
        """Compact form (short keys, no spaces): keyrings limit a secret's size."""
        data: dict[str, str | int] = {"a": self.access_token}
        if self.refresh_token:
            data["r"] = self.refresh_token
        if self.expires_at is not None:
            data["e"] = round(self.expires_at)
        if self.scopes:
            data["s"] = " ".join(self.scopes)
        if self.obtained_at:
            data["o"] = round(self.obtained_at)
        if self.username:
            data["u"] = self.username
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> TokenSet:
        try:
            data = json.loads(text)
            return cls(
                access_token=data["a"],
                refresh_token=data.get("r"),
                expires_at=data.get("e"),
                scopes=tuple(data.get("s", "").split()),
                obtained_at=data.get("o", 0.0),
                username=data.get("u"),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise ProtocolError("the stored token set is damaged; log in again") from exc


def _expiry(expires_in: object, now: float) -> float | None:
    """``expires_in`` is a number (or, from some servers, a numeric string)."""
    if isinstance(expires_in, bool) or not isinstance(expires_in, int | float | str):
        return None
    try:
        return now + float(expires_in)
    except ValueError:
        return None


def _scopes(raw: object, previous: TokenSet | None, requested: tuple[str, ...]) -> tuple[str, ...]:
    """``scope`` is a space-separated string (spec) or a JSON array (MetaBrainz)."""
    if isinstance(raw, str):
        return tuple(raw.split())
    if isinstance(raw, list):
        return tuple(str(item) for item in raw)
    if previous is not None and previous.scopes:
        return previous.scopes
    return requested
