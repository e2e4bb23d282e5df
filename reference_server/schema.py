"""The tables and indexes of the server's SQLite file (storage.py opens it and applies them).

Every statement is idempotent: run on every start, it creates what is missing and leaves the
rest.
"""

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    id             INTEGER PRIMARY KEY,
    name           TEXT NOT NULL UNIQUE,
    password_hash  TEXT NOT NULL,
    email          TEXT,
    email_verified INTEGER NOT NULL DEFAULT 0,
    website        TEXT,
    gender         TEXT,
    timezone       TEXT NOT NULL DEFAULT 'UTC',
    created_at     INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS applications (
    id           INTEGER PRIMARY KEY,
    client_id    TEXT NOT NULL UNIQUE,  -- APP-CLIENT-ID-UNIQUE
    secret_hash  TEXT NOT NULL,
    owner_id     INTEGER NOT NULL REFERENCES users(id),
    name         TEXT NOT NULL,
    type         TEXT NOT NULL CHECK (type IN ('confidential', 'public')),
    redirect_uri TEXT NOT NULL,
    created_at   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS applications_owner ON applications(owner_id);
-- One authorization of one application by one user: what a code exchange creates.
-- Codes and tokens are split tokens (credentials.py): `id` is the selector, time-ordered, so
-- inserts append; the *_hash columns hold the SHA-256 of the verifier, 32 bytes.
CREATE TABLE IF NOT EXISTS grants (
    id             INTEGER PRIMARY KEY,  -- the refresh token's selector
    application_id INTEGER NOT NULL REFERENCES applications(id),
    user_id        INTEGER NOT NULL REFERENCES users(id),
    scope          TEXT NOT NULL,
    refresh_hash   BLOB,                 -- NULL for an online web application
    created_at     INTEGER NOT NULL,
    revoked_at     INTEGER
);
CREATE INDEX IF NOT EXISTS grants_user_app ON grants(user_id, application_id);
CREATE TABLE IF NOT EXISTS access_tokens (
    id         INTEGER PRIMARY KEY,      -- the token's selector
    token_hash BLOB NOT NULL,
    grant_id   INTEGER NOT NULL REFERENCES grants(id),
    scope      TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER
);
-- A grant's tokens, its live ones first (NULL sorts first): a refresh revokes the grant's
-- previous token, and a grant collects one more revoked token per refresh, forever. An index
-- on grant_id alone made each refresh visit all of them (O(refreshes so far)); with
-- revoked_at in the key a refresh reads the live ones only, and the purge still finds every
-- token of a dead grant (a partial index of the live ones made that a full scan per grant).
DROP INDEX IF EXISTS access_tokens_grant;
DROP INDEX IF EXISTS access_tokens_live;
CREATE INDEX IF NOT EXISTS access_tokens_by_grant ON access_tokens(grant_id, revoked_at);
CREATE TABLE IF NOT EXISTS codes (
    id              INTEGER PRIMARY KEY, -- the code's selector
    code_hash       BLOB NOT NULL,
    application_id  INTEGER NOT NULL REFERENCES applications(id),
    user_id         INTEGER NOT NULL REFERENCES users(id),
    scope           TEXT NOT NULL,
    redirect_uri    TEXT NOT NULL,
    challenge       TEXT,
    challenge_method TEXT,
    offline         INTEGER NOT NULL,    -- 1: the exchange yields a refresh token
    expires_at      INTEGER NOT NULL,
    grant_id        INTEGER,             -- set when redeemed
    redeemed_at     INTEGER
);
CREATE INDEX IF NOT EXISTS codes_user_app ON codes(user_id, application_id);
-- The code a grant came from, for the purge (a dead grant goes with its code).
CREATE INDEX IF NOT EXISTS codes_by_grant ON codes(grant_id) WHERE grant_id IS NOT NULL;
-- Scope sets a user approved for a web application (approval_prompt=auto).
CREATE TABLE IF NOT EXISTS consents (
    user_id        INTEGER NOT NULL,
    application_id INTEGER NOT NULL,
    scope          TEXT NOT NULL,
    granted_at     INTEGER NOT NULL,
    PRIMARY KEY (user_id, application_id, scope)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sessions (
    session_hash TEXT PRIMARY KEY,
    user_id      INTEGER,
    csrf         TEXT NOT NULL,
    expires_at   INTEGER NOT NULL
) WITHOUT ROWID;
-- Single-use tokens bound to a session and to one use: a consent form (its authorization
-- request), a flash message (web/flash.py).
CREATE TABLE IF NOT EXISTS form_tokens (
    token_hash   TEXT PRIMARY KEY,
    session_hash TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    expires_at   INTEGER NOT NULL
) WITHOUT ROWID;
-- Partial indexes of a token layout that is gone: earlier versions made them on every database.
DROP INDEX IF EXISTS grants_legacy;
DROP INDEX IF EXISTS access_tokens_legacy;
DROP INDEX IF EXISTS codes_legacy;
-- Failed guesses per source address and name (guard.py): passwords, secrets, codes.
DROP TABLE IF EXISTS auth_failures;
CREATE TABLE IF NOT EXISTS throttle (
    key           TEXT PRIMARY KEY,      -- "<address> <user:name or client_id>"
    failures      INTEGER NOT NULL,
    blocked_until INTEGER NOT NULL,      -- no further try before this time
    last_at       INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
"""
