"""The endpoints clients call (spec 4.2-4.5: token, revoke, userinfo), one module each; JSON.

Each handler returns a success answer of `success_replies` and raises its errors, which the
renderers of `error_replies` answer. The authorization endpoint (spec 4.1) is a page people
see: it lives in `web/`.
"""
