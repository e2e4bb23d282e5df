"""The service's own web pages: log in, consent, out-of-band code, the user's applications."""
