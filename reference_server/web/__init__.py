"""The service's pages: authorization and consent, log in, out-of-band code, the user's pages."""
