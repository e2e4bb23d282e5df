"""OAuth error responses (RFC 6749 5.2 for the token and revoke endpoints)."""

from __future__ import annotations

from starlette.responses import JSONResponse

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
REALM = "MusicBrainz OAuth reference server"


class OAuthError(Exception):
    """An error the client is told about as `error` and `error_description`."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status
        self.headers: dict[str, str] = {}

    def response(self) -> JSONResponse:
        headers = {**NO_STORE, **self.headers}
        if self.error == "invalid_client":
            headers["WWW-Authenticate"] = f'Basic realm="{REALM}"'
        body = {"error": self.error, "error_description": self.description}
        return JSONResponse(body, status_code=self.status, headers=headers)


def invalid_request(description: str) -> OAuthError:
    return OAuthError("invalid_request", description)


def invalid_client(description: str = "client authentication failed") -> OAuthError:
    return OAuthError("invalid_client", description, status=401)


def invalid_grant(description: str) -> OAuthError:
    return OAuthError("invalid_grant", description)
