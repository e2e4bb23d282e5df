"""The bundled reference server: the whole MusicBrainz OAuth 2.0 spec over HTTPS on SQLite."""
