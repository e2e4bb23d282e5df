"""Deployment profiles: what the suite knows of a target (profile.py: `TargetProfile`, read
from TOML, and keys.py: the keys each table knows), the commented examples for musicbrainz.org
and metabrainz.org, and the code that starts, provisions and describes the bundled server as a
profile for the runner (bundled.py, writer.py)."""
