"""The scopes of spec section 2.4, with the words the consent page shows for them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scope:
    name: str
    description: str


#: SCOPE-IDENTIFIERS: the seven scopes of spec 2.4.
SCOPES: dict[str, Scope] = {
    s.name: s
    for s in (
        Scope(
            "profile", "View your public account information (username, age, country, homepage)."
        ),
        Scope("email", "View your email address."),
        Scope("tag", "View and modify your private tags."),
        Scope("rating", "View and modify your private ratings."),
        Scope("collection", "View and modify your private collections."),
        Scope("submit_isrc", "Submit new ISRCs to the database."),
        Scope("submit_barcode", "Submit barcodes to the database."),
    )
}


class ScopeError(ValueError):
    """The scope parameter names no scope, or one the service does not know."""


def parse_scope(value: str | None) -> frozenset[str]:
    """Split a space-delimited scope string, of names the service knows."""
    names = (value or "").split()
    if not names:  # AUTHZ-REQUIRED-PARAMS: scope is required
        raise ScopeError("no scope was requested")
    # SCOPE-CASE-SENSITIVE: compared exactly (RFC 6749 3.3), "Profile" is no scope
    unknown = [n for n in names if n not in SCOPES]
    if unknown:
        raise ScopeError("unknown scope: {}".format(", ".join(sorted(set(unknown)))))
    return frozenset(names)


def canonical(scopes: frozenset[str] | set[str]) -> str:
    """One spelling per scope set, in the order of the spec's table."""
    return " ".join(name for name in SCOPES if name in scopes)


def describe(scopes: frozenset[str]) -> list[Scope]:
    return [SCOPES[name] for name in SCOPES if name in scopes]
