"""Users and registered applications (spec 2.1)."""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from typing import Any

from . import credentials
from .account_rules import AccountError as AccountError  # re-exported: callers find it here
from .account_rules import (
    check_application,
    check_password,
    check_profile,
    clean_user_name,
)
from .storage import Row, Store


@dataclass(frozen=True)
class Account:
    id: int
    name: str
    email: str | None
    email_verified: bool
    website: str | None
    gender: str | None
    timezone: str

    @classmethod
    def from_row(cls, row: Row) -> Account:
        """The user of a row, kept: users are immutable values, so the same row gives the same
        object (userinfo then finds its profile's bytes by that object's identity)."""
        return _user(
            row["id"],
            row["name"],
            row["email"],
            bool(row["email_verified"]),
            row["website"],
            row["gender"],
            row["timezone"] or "UTC",
        )


@dataclass(frozen=True)
class Application:
    id: int
    client_id: str
    secret_hash: str
    owner_id: int
    name: str
    type: str
    redirect_uri: str

    @property
    def is_public(self) -> bool:
        return self.type == "public"

    @classmethod
    def from_row(cls, row: Row) -> Application:
        """The application of a row, kept like `Account.from_row`'s (the token endpoints read the
        same few applications again and again); any changed column is another key."""
        return _application(*_application_columns(row))


@functools.lru_cache(maxsize=1024)
def _user(*values: Any) -> Account:
    return Account(*values)


_application_columns = operator.itemgetter(*Application.__dataclass_fields__)


@functools.lru_cache(maxsize=1024)
def _application(*values: Any) -> Application:
    return Application(*values)


@dataclass(frozen=True)
class NewApplication:
    """What registration returns: the only moment the Client Secret is shown."""

    application: Application
    client_secret: str


def add_user(
    store: Store,
    name: str,
    password: str,
    now: int,
    *,
    email: str | None = None,
    website: str | None = None,
    gender: str | None = None,
    timezone: str | None = None,
) -> Account:
    name = clean_user_name(name)
    check_password(password)
    check_profile(email, website, timezone, gender)
    password_hash = credentials.hash_password(password)  # slow: outside the write lock
    with store.transaction():
        taken = _same_name(store, "SELECT name FROM users", (), name)
        if taken is not None:
            raise AccountError(
                f"the user name {name!r} is taken (by {taken!r}: case is ignored)", "name"
            )
        cursor = store.run(
            "INSERT INTO users (name, password_hash, email, email_verified, website, gender,"
            " timezone, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            name,
            password_hash,
            email,
            1 if email else 0,
            website,
            gender,
            timezone or "UTC",
            now,
        )
    user = user_by_id(store, int(cursor.lastrowid or 0))
    assert user is not None
    return user


def _same_name(store: Store, sql: str, args: tuple[object, ...], name: str) -> str | None:
    """A name among the query's that equals `name` regardless of case, or None.

    Compared in Python (str.casefold), not with SQLite's NOCASE, which folds ASCII only.
    """
    wanted = name.casefold()
    return next((r["name"] for r in store.all(sql, *args) if r["name"].casefold() == wanted), None)


def user_by_id(store: Store, user_id: int) -> Account | None:
    row = store.one("SELECT * FROM users WHERE id = ?", user_id)
    return Account.from_row(row) if row else None


def user_by_name(store: Store, name: str) -> Account | None:
    row = store.one("SELECT * FROM users WHERE name = ?", name)
    return Account.from_row(row) if row else None


def authenticate_user(store: Store, name: str, password: str) -> Account | None:
    """Check a password; unknown names cost the same time as known ones."""
    row = store.one("SELECT * FROM users WHERE name = ?", name)
    stored = row["password_hash"] if row else credentials.DUMMY_PASSWORD_HASH
    ok = credentials.check_password(password, stored)
    return Account.from_row(row) if row and ok else None


def _refuse_duplicate(store: Store, owner_id: int, name: str, except_id: int = 0) -> None:
    """Two applications of one owner never share a name (the consent page shows it)."""
    taken = _same_name(
        store,
        "SELECT name FROM applications WHERE owner_id = ? AND id != ?",
        (owner_id, except_id),
        name,
    )
    if taken is not None:
        raise AccountError(f"you have an application named {taken!r} already", "name")


def add_application(
    store: Store, owner: Account, name: str, app_type: str, redirect_uri: str, now: int
) -> NewApplication:
    name = check_application(app_type, name, redirect_uri)
    client_id = credentials.new_client_id()  # APP-CLIENT-ID-UNIQUE: random, UNIQUE in schema
    secret = credentials.new_token()
    with store.transaction():
        _refuse_duplicate(store, owner.id, name)
        store.run(
            "INSERT INTO applications (client_id, secret_hash, owner_id, name, type,"
            " redirect_uri, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            client_id,
            credentials.token_hash(secret),
            owner.id,
            name,
            app_type,
            redirect_uri,
            now,
        )
    app = application_by_client_id(store, client_id)
    assert app is not None
    return NewApplication(app, secret)


def update_application(
    store: Store, app: Application, name: str, redirect_uri: str, now: int
) -> Application:
    """Rename an application or change its redirect URI (its type stays: see below).

    A new redirect URI ends the codes still on their way to the old one and the standing
    consents (approval_prompt=auto): users are asked again, on a page that shows the new
    destination. Grants and tokens stay valid: they never travel to the redirect URI again.
    The type is fixed because it decides what a grant may hold (refresh tokens, secrets).
    """
    name = check_application(app.type, name, redirect_uri)
    with store.transaction():
        _refuse_duplicate(store, app.owner_id, name, except_id=app.id)
        store.run(
            "UPDATE applications SET name = ?, redirect_uri = ? WHERE id = ?",
            name,
            redirect_uri,
            app.id,
        )
        if redirect_uri != app.redirect_uri:
            store.run(
                "UPDATE codes SET expires_at = ? WHERE application_id = ? AND redeemed_at IS NULL"
                " AND expires_at > ?",
                now,
                app.id,
                now,
            )
            store.run("DELETE FROM consents WHERE application_id = ?", app.id)
    updated = application_by_client_id(store, app.client_id)
    assert updated is not None
    return updated


def delete_application(store: Store, app: Application) -> None:
    """Delete an application with everything issued to it, in one transaction.

    Its grants, access and refresh tokens, codes and consents go with it: no token of a deleted
    application works a moment longer (to its clients they look revoked: unknown), and its
    client_id and secret stop authenticating.
    """
    with store.transaction():
        store.run(
            "DELETE FROM access_tokens WHERE grant_id IN"
            " (SELECT id FROM grants WHERE application_id = ?)",
            app.id,
        )
        store.run("DELETE FROM codes WHERE application_id = ?", app.id)
        store.run("DELETE FROM grants WHERE application_id = ?", app.id)
        store.run("DELETE FROM consents WHERE application_id = ?", app.id)
        store.run("DELETE FROM applications WHERE id = ?", app.id)


def application_by_client_id(store: Store, client_id: str) -> Application | None:
    row = store.one("SELECT * FROM applications WHERE client_id = ?", client_id)
    return Application.from_row(row) if row else None


def applications_of(store: Store, owner: Account) -> list[Application]:
    rows = store.all("SELECT * FROM applications WHERE owner_id = ? ORDER BY id", owner.id)
    return [Application.from_row(r) for r in rows]


def reset_secret(store: Store, app: Application) -> str:
    """A new Client Secret; the old one stops working at once."""
    secret = credentials.new_token()
    store.run(
        "UPDATE applications SET secret_hash = ? WHERE id = ?",
        credentials.token_hash(secret),
        app.id,
    )
    return secret
