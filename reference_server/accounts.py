"""Users and registered applications (spec 2.1)."""

from __future__ import annotations

from dataclasses import dataclass

from . import credentials
from .storage import Row, Store

APPLICATION_TYPES = ("confidential", "public")


class AccountError(ValueError):
    """A user or application cannot be created as asked."""


@dataclass(frozen=True)
class User:
    id: int
    name: str
    email: str | None
    email_verified: bool
    website: str | None
    gender: str | None
    timezone: str

    @classmethod
    def from_row(cls, row: Row) -> User:
        return cls(
            id=row["id"],
            name=row["name"],
            email=row["email"],
            email_verified=bool(row["email_verified"]),
            website=row["website"],
            gender=row["gender"],
            timezone=row["timezone"] or "UTC",
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
        return cls(**{k: row[k] for k in cls.__dataclass_fields__})


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
) -> User:
    name = name.strip()
    if not name or len(name) > 64 or any(c in name for c in "/?#\x00"):
        raise AccountError("a user name is 1 to 64 characters without / ? #")
    if len(password) < 8:
        raise AccountError("a password has at least 8 characters")
    if store.one("SELECT 1 FROM users WHERE name = ?", name):
        raise AccountError(f"the user {name!r} exists already")
    cursor = store.run(
        "INSERT INTO users (name, password_hash, email, email_verified, website, gender,"
        " timezone, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        name,
        credentials.hash_password(password),
        email,
        1 if email else 0,
        website,
        gender,
        timezone or "UTC",
        now,
    )
    return user_by_id(store, cursor.lastrowid)  # type: ignore[return-value,arg-type]


def user_by_id(store: Store, user_id: int) -> User | None:
    row = store.one("SELECT * FROM users WHERE id = ?", user_id)
    return User.from_row(row) if row else None


def user_by_name(store: Store, name: str) -> User | None:
    row = store.one("SELECT * FROM users WHERE name = ?", name)
    return User.from_row(row) if row else None


def authenticate_user(store: Store, name: str, password: str) -> User | None:
    """Check a password; unknown names cost the same time as known ones."""
    row = store.one("SELECT * FROM users WHERE name = ?", name)
    stored = row["password_hash"] if row else credentials.DUMMY_PASSWORD_HASH
    ok = credentials.check_password(password, stored)
    return User.from_row(row) if row and ok else None


def add_application(
    store: Store, owner: User, name: str, app_type: str, redirect_uri: str, now: int
) -> NewApplication:
    from .redirects import validate_registered_uri

    name = name.strip()
    if not name or len(name) > 255:
        raise AccountError("an application name is 1 to 255 characters")
    if app_type not in APPLICATION_TYPES:
        raise AccountError("the application type is 'confidential' or 'public'")
    problem = validate_registered_uri(redirect_uri, app_type)
    if problem:
        raise AccountError(problem)
    client_id = credentials.new_token()
    secret = credentials.new_token()
    store.run(
        "INSERT INTO applications (client_id, secret_hash, owner_id, name, type, redirect_uri,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
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


def application_by_client_id(store: Store, client_id: str) -> Application | None:
    row = store.one("SELECT * FROM applications WHERE client_id = ?", client_id)
    return Application.from_row(row) if row else None


def applications_of(store: Store, owner: User) -> list[Application]:
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
