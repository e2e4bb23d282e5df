"""A foreign-style OAuth 2.0 provider, written apart from reference_server/, that differs from
the spec in many places at once the way the metabrainz.org provider does (prefixed scopes,
rotating refresh tokens with family revocation, errors on its own page, no out-of-band, ...).

The suite is run against it and its verdicts are compared with `truth.toml`, the true verdict
of every rule written down by hand (tests/suite/test_foreign_target.py).
"""
