"""The parameter rules of the token and revocation endpoints (spec 4, 4.2-4.4; RFC 6749 3.2).

Parameters come from the form body only: a query string is refused, so no client secret or
code ever travels in a URL (RFC 6749 3.2, RFC 9700 4.3). A parameter is given once, in a body
of the form content type, in URL-encoded UTF-8, without NUL (urlencoded.py); every refusal is
`invalid_request` (RFC 6749 5.2), 413 for a body too large.
"""

from __future__ import annotations

from ..errors import OAuthError, ParameterError, invalid_request
from ..urlencoded import form_parameters
from .request import ClientRequest


def body_parameters(request: ClientRequest) -> dict[str, str]:
    """The parameters of a token or revocation request."""
    if request.query:  # TOKEN-NO-QUERY-PARAMS, REVOKE-NO-QUERY-PARAMS
        raise invalid_request("parameters must be sent in the request body, not in the URL")
    try:
        return form_parameters(request.content_type, request.body)
    except ParameterError as error:
        raise OAuthError("invalid_request", str(error), status=error.status) from None


def required(params: dict[str, str], name: str) -> str:
    """A parameter that must be there and not empty."""
    value = params.get(name)
    # TOKEN-REQUIRED-PARAMS, REFRESH-REQUIRED-PARAMS, REVOKE-REQUIRED-PARAMS (of the client's
    # credentials too: client_auth.py), answered as TOKEN-ERR-INVALID-REQUEST
    if not value:
        raise invalid_request(f"{name} is required")
    return value


def check_token_type(params: dict[str, str]) -> None:
    """Only bearer tokens (spec 4.2, 4.3 and 9: the earlier description also had mac)."""
    token_type = params.get("token_type")
    # TOKEN-TYPE-PARAM, VERSION-TOKEN-TYPE-BEARER-ONLY
    if token_type is not None and token_type.lower() != "bearer":
        raise invalid_request("token_type must be bearer")
