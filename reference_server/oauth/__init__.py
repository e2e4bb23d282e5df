"""The endpoints clients call (spec 4.2-4.5: token, revoke, userinfo), one module each; JSON.

The authorization endpoint (spec 4.1) is a page people see: it lives in `web/`.
"""
