"""The OAuth 2.0 endpoints of spec section 4, one module each, and the rules they share."""
