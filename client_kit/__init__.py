"""Client kit for the MusicBrainz OAuth 2.0 service.

    from client_kit import Session, profiles
    session = Session(profiles.musicbrainz(), client_id="...", client_secret="...")
    session.login(scopes=["profile", "tag"])           # loopback redirect, PKCE, state
    with httpx.Client(auth=session.auth()) as http:     # bearer token, refreshed as needed
        http.get("https://musicbrainz.org/ws/2/tag?...")

The public names are declared once, in ``__init__.pyi`` beside this file, one line each:
type checkers read it, and this module reads it to import each name on first use (so that
``mb-oauth token`` starts quickly). ``help(client_kit.Session)`` and the others say the rest.
Modules whose names begin with ``_`` are internal: import from ``client_kit`` instead.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
