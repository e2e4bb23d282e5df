"""Client kit for the MusicBrainz OAuth 2.0 service."""
