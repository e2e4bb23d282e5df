"""What ``mb-oauth`` adds to a kit error: the option, variable or command that fixes it.

The library's exceptions say what happened and carry typed facts (``setting``, ``seconds``,
``ports``); only here do they meet the command line's vocabulary. Their exit codes are
mapped in :mod:`client_kit._cli_exit` (documented in ``mb-oauth --help``).
"""

from __future__ import annotations

from client_kit import _errors

#: where each setting is given on the command line (option, variable, config file key)
SETTING_HINTS: dict[_errors.Setting, str] = {
    "client_id": "pass --client-id, set MB_OAUTH_CLIENT_ID or add client_id to the config file",
    "client_secret": "check MB_OAUTH_CLIENT_SECRET (or client_secret in the config file)",
    "service": "--service takes musicbrainz, metabrainz or an https:// base URL; to apply a "
    "profile's rules at another address use --service NAME --base-url URL",
    "base_url": "check --base-url / MB_OAUTH_BASE_URL",
    "ca_bundle": "check --ca-bundle / MB_OAUTH_CA_BUNDLE / ca_bundle (a CA file that signed "
    "the service's certificate)",
    "ports": "pass the ports of your registered http://localhost:PORT/callback redirect URIs "
    "with --port (or ports = [...] in the config file)",
    "scopes": "check --scope",
    "method": "use the loopback login (without --oob) with a registered --port",
    "redirect_uri": "check --client-id, --port and the registered redirect URI",
    "store": "use --store keyring, file, file:DIR or memory",
    "config_file": "fix or move the config file (MB_OAUTH_CONFIG names another one)",
}
FILE_STORE = (
    "or opt in to a plain file store readable only by you with --store file (or "
    'MB_OAUTH_STORE=file, or store = "file" in the config file)'
)
LOG_IN = "run `mb-oauth login`"


def hint_for(exc: _errors.KitError) -> str | None:
    """The command-line advice for ``exc``, or None when its message says it all."""
    if isinstance(exc, _errors.KeyringFailure):
        return _keyring(exc)
    if isinstance(exc, _errors.LoginRequired):
        return LOG_IN
    if isinstance(exc, _errors.ClientRejected) and exc.setting is None:
        return "check --client-id and MB_OAUTH_CLIENT_SECRET (or client_secret in the config file)"
    if isinstance(exc, _errors.ClientRejected) and exc.setting == "client_id":
        return "check --client-id / MB_OAUTH_CLIENT_ID and the --service it was registered with"
    if isinstance(exc, _errors.ConfigurationError) and exc.setting is not None:
        return SETTING_HINTS.get(exc.setting)
    if isinstance(exc, _errors.InvalidScope):
        return SETTING_HINTS["scopes"]
    if isinstance(exc, _errors.LoginTimeout):
        if exc.oob:
            return "run the login again"
        return (
            "run the login again (use --oob or paste the redirected URL if the browser cannot "
            "reach this machine)"
        )
    if isinstance(exc, _errors.PortUnavailable) and exc.ports:
        return "or pass another registered port with --port"
    return None


def _keyring(exc: _errors.KeyringFailure) -> str:
    advice = FILE_STORE
    if isinstance(exc, _errors.KeyringTimeout):
        advice += ". To wait longer, set MB_OAUTH_KEYRING_TIMEOUT to a number of seconds"
    return advice


def explain(exc: _errors.KitError) -> str:
    """The message ``mb-oauth`` prints: the kit's, then the advice."""
    hint = hint_for(exc)
    return f"{exc}; {hint}" if hint else str(exc)


#: the settings a service's rules decide (scope names, fixed ports, out-of-band, redirect URIs)
RULE_SETTINGS = ("scopes", "ports", "method", "redirect_uri")


def rules_may_explain(exc: _errors.KitError) -> bool:
    """Whether applying another profile's rules could make ``exc`` go away."""
    if isinstance(exc, _errors.ConfigurationError):
        return exc.setting in RULE_SETTINGS
    return isinstance(
        exc,
        _errors.InvalidScope
        | _errors.InvalidRequest
        | _errors.UnauthorizedClient
        | _errors.UnexpectedAnswer,
    )


def implied_rules_note(service: str | None, base_url: str | None) -> str | None:
    """What to tell a user who gave an address but no profile name: whose rules apply."""
    url = base_url if not service else service if "://" in service else None
    if not url or (service and base_url):
        return None
    return (
        f"{url}: no service profile named, so the musicbrainz rules apply (bare scope names "
        "such as 'tag', out-of-band login, any loopback port). For a MetaBrainz deployment "
        f"use --service metabrainz --base-url {url}."
    )
