"""What the ledger keeps (tests/suite/proof/ledger.py): the authorization a code was issued
for, the code, the grant its exchange started and the grant's tokens."""

from __future__ import annotations

from dataclasses import dataclass

#: The access token's lifetime when an answer does not say (spec 2.3).
ACCESS_LIFETIME = 3600


@dataclass(frozen=True)
class Authorization:
    """An authorization request that led to a code: what the code was issued for."""

    client_id: str
    client: str  # online, offline, installed
    pkce: str  # S256, plain, none
    method_given: bool  # code_challenge_method was sent (a plain challenge may omit it)
    challenge: str | None
    redirect_uri: str
    scope: str
    approval_prompt: str | None


@dataclass
class Grant:
    """The tokens one code exchange started, with the authorization behind them."""

    id: int
    authorization: Authorization
    revoked: bool = False

    @property
    def client(self) -> str:
        return self.authorization.client

    @property
    def scopes(self) -> set[str]:
        return set(self.authorization.scope.split())


@dataclass
class Code:
    value: str
    authorization: Authorization
    issued_at: float
    used: bool = False
    grant: Grant | None = None


@dataclass
class Token:
    value: str
    kind: str  # access, refresh
    grant: Grant
    origin: str  # code, refresh: the request whose answer carried it
    issued_at: float
    expires_in: int = ACCESS_LIFETIME
    revoked: bool = False
    refreshes: int = 0  # granted refreshes with it (a refresh token)

    @property
    def dead(self) -> bool:
        return self.revoked or self.grant.revoked


def client_type(role: str, access_type: str | None) -> str:
    """online, offline or installed: the profile's role and the request's access_type."""
    if role == "installed":
        return "installed"
    return "offline" if access_type == "offline" else "online"


def pkce_kind(challenge: str | None, method: str | None) -> str:
    """S256, plain (a plain method, or none given), none (no challenge); "-" for another
    method (a malformed request, not a kind of PKCE)."""
    if challenge is None:
        return "none"
    if method is None or method == "plain":
        return "plain"
    return "S256" if method == "S256" else "-"
