"""What ``Session.status()`` reports: who is logged in, with which scopes, until when, where.

Facts, typed and without secrets; how ``mb-oauth status`` words and shapes them is the
CLI's business (:mod:`client_kit._cli_output`). It is also a read-only mapping with the keys
of the dictionary that ``status()`` returned before (``status["scopes"]``, ``dict(status)``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from client_kit._storage import StoreKey
    from client_kit._tokens import TokenSet
    from client_kit.profiles import Profile

#: a value of :meth:`LoginStatus.as_dict` (JSON-ready)
StatusValue = str | bool | int | float | list[str] | None


@dataclass(frozen=True)
class LoginStatus(Mapping[str, StatusValue]):
    """One stored login as seen now (``logged_in`` False: nothing is stored)."""

    service: str
    base_url: str
    client_id: str
    account: str
    store: str
    logged_in: bool
    username: str | None = None
    #: the granted scopes, in the service's short names (``tag``, not ``musicbrainz:tag``)
    scopes: tuple[str, ...] = ()
    has_refresh_token: bool = False
    #: seconds since 1970 (UTC) when the access token expires; None: the service did not say
    expires_at: float | None = None
    #: whole seconds left (0 once expired); None when ``expires_at`` is
    expires_in: int | None = None
    expired: bool = False

    @classmethod
    def of(
        cls, profile: Profile, key: StoreKey, store: str, tokens: TokenSet | None
    ) -> LoginStatus:
        """The status of the login ``key`` whose stored set is ``tokens`` (None: none)."""
        where = cls(profile.name, profile.base_url, key.client_id, key.account, store, False)
        if tokens is None:
            return where
        remaining = tokens.expires_in()
        return replace(
            where,
            logged_in=True,
            username=tokens.username,
            scopes=tuple(profile.short_scopes(tokens.scopes)),
            has_refresh_token=bool(tokens.refresh_token),
            expires_at=tokens.expires_at,
            expires_in=None if remaining is None else max(0, round(remaining)),
            expired=tokens.is_expired(margin=0),
        )

    def as_dict(self) -> dict[str, StatusValue]:
        """The dictionary ``status()`` returned before it was typed (only the set fields)."""
        data: dict[str, StatusValue] = {
            "service": self.service,
            "base_url": self.base_url,
            "client_id": self.client_id,
            "account": self.account,
            "store": self.store,
            "logged_in": self.logged_in,
        }
        if self.logged_in:
            data.update(
                username=self.username,
                scopes=list(self.scopes),
                has_refresh_token=self.has_refresh_token,
                expires_at=self.expires_at,
                expires_in=self.expires_in,
                expired=self.expired,
            )
        return data

    def __getitem__(self, name: str) -> StatusValue:
        return self.as_dict()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_dict())

    def __len__(self) -> int:
        return len(self.as_dict())
