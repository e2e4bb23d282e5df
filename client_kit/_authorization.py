"""The authorization request (URL, PKCE, state) and the parsing of what comes back."""

from __future__ import annotations

import hmac
import json
import os
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import pkce

from client_kit._errors import (
    ConfigurationError,
    StateMismatch,
    StorageError,
    authorization_error,
)
from client_kit.private_files import read_private, write_private
from client_kit.profiles import Profile


@dataclass(frozen=True)
class AuthorizationRequest:
    """One login attempt: the URL to open and what is needed to finish it.

    Plain data: an application may persist it and finish the login later with
    ``Session.complete_login``. It holds the PKCE verifier and ``state`` (with the code, the
    verifier gets the tokens), so keep it where you would keep a password, and only until
    the login ends: :meth:`save` writes it to a file readable by its owner only (0600),
    :meth:`load` reads it back; :meth:`to_json` and :meth:`from_json` give the text to keep
    elsewhere.
    """

    url: str
    redirect_uri: str
    state: str = field(repr=False)
    code_verifier: str | None = field(default=None, repr=False)
    scopes: tuple[str, ...] = ()
    #: the loopback listener's page that forwards the browser to ``url`` (see browser_url)
    launcher_url: str | None = None

    @property
    def browser_url(self) -> str:
        """What to open in a browser: the loopback listener's launcher when there is one.

        A browser is started with its URL in its command line, which every local user can
        read; ``url`` holds the ``state`` and PKCE challenge, the launcher neither. Show
        ``url`` to a person (to copy, or to open elsewhere); hand ``browser_url`` to a program.
        """
        return self.launcher_url or self.url

    @property
    def method(self) -> str:
        """``oob`` (the user pastes a code) or ``loopback`` (a redirect to this machine)."""
        from client_kit.profiles import OOB_REDIRECT_URI

        return "oob" if self.redirect_uri == OOB_REDIRECT_URI else "loopback"

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write it to ``path`` as a new file of mode 0600 (only its owner may read it: it
        holds the PKCE verifier) that replaces any file or link there. Delete the file once
        the login has ended."""
        try:
            write_private(Path(path), self.to_json())
        except OSError as exc:
            raise StorageError(f"cannot write {path}: {exc.strerror}") from exc

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> AuthorizationRequest:
        """Read a request that :meth:`save` wrote; a symbolic link, or a file of another
        user, is refused."""
        try:
            text = read_private(Path(path), "saved login request")
        except OSError as exc:
            raise StorageError(f"cannot read {path}: {exc.strerror}") from exc
        return cls.from_json(text)

    @classmethod
    def from_json(cls, text: str) -> AuthorizationRequest:
        try:
            data = json.loads(text)
            return cls(
                url=str(data["url"]),
                redirect_uri=str(data["redirect_uri"]),
                state=str(data["state"]),
                code_verifier=data.get("code_verifier"),
                scopes=tuple(data.get("scopes") or ()),
                launcher_url=data.get("launcher_url"),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigurationError("not a saved authorization request") from exc


def build_request(
    profile: Profile,
    client_id: str,
    redirect_uri: str,
    scopes: Sequence[str],
    *,
    use_pkce: bool = True,
    extra: Mapping[str, str] | None = None,
) -> AuthorizationRequest:
    """A fresh authorization URL with a random ``state`` and an S256 PKCE challenge."""
    wire = profile.wire_scopes(scopes)
    state = secrets.token_urlsafe(24)
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "scope": " ".join(wire),
        "state": state,
    }
    verifier = None
    if use_pkce:
        verifier, challenge = pkce.generate_pkce_pair(64)
        params["code_challenge"] = challenge
        params["code_challenge_method"] = "S256"
    params.update(extra or {})
    url = f"{profile.authorize_url}?{urlencode(params)}"
    return AuthorizationRequest(url, redirect_uri, state, verifier, tuple(wire))


def parse_pasted(text: str) -> dict[str, str]:
    """What the user pasted: a bare code, or the whole redirected URL (query or fragment)."""
    text = text.strip().strip("'\"<>")
    if not text:
        return {}
    if "://" in text or text.startswith(("?", "/")) or "code=" in text or "error=" in text:
        parts = urlsplit(text if "://" in text or text.startswith("/") else "/" + text)
        query = parts.query or (parts.path.lstrip("/?") if "=" in parts.path else "")
        params = dict(parse_qsl(query, keep_blank_values=True))
        if not params and parts.fragment:
            params = dict(parse_qsl(parts.fragment.lstrip("#"), keep_blank_values=True))
        return {k: v for k, v in params.items() if k != "_"}
    return {"code": text}


def check_redirect(params: Mapping[str, str], expected_state: str, *, pasted: bool = False) -> str:
    """The code of a redirect, after checking ``state``; raise the redirect's error.

    An error may come without ``state`` (MetaBrainz drops it on a cancelled consent): the
    worst a forger can do with that is cancel the login. A code must always carry the right
    state, except a bare code the user pasted by hand (they copied it from the service).
    """
    state = params.get("state")
    if state is not None and not hmac.compare_digest(state, expected_state):
        raise StateMismatch(description="return to the application and start the login again")
    error = params.get("error")
    if error:
        raise authorization_error(error, params.get("error_description"))
    code = params.get("code")
    if not code:
        raise authorization_error("invalid_request", "the redirect carried no code")
    if state is None and not (pasted and set(params) == {"code"}):
        raise StateMismatch(description="the redirect carried no state; start the login again")
    return code
