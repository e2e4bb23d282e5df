"""Deployment profiles: the commented example for musicbrainz.org, and the code that starts,
provisions and describes the bundled server as a profile for the runner."""
