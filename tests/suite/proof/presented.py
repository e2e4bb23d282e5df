"""What a request presents, as the classifier reads it: its kind (an authorization, a code
exchange, a refresh, a revocation, a user information request, ...), its client, and the code
or token it presents, looked up in the ledger (or traced to the issued one it resembles)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from steps.rules.dimensions import NOT_APPLICABLE
from tests.suite.broken.exchange import ProxyRequest
from tests.suite.broken.registry import AUTHORIZE, REVOKE, TOKEN, USERINFO
from tests.suite.proof.ledger import MANUAL_REVOKE, Ledger
from tests.suite.proof.records import Code, Token

OOB_PAGE = "/oauth2/oob"


@dataclass
class Request:
    """One request as the classifier reads it: what it presents, looked up in the ledger."""

    req: ProxyRequest
    ledger: Ledger

    @cached_property
    def kind(self) -> str:
        """authorize, exchange, refresh, token (another grant), revoke, userinfo, oob (the
        out-of-band page), manual (the user's revocation on the website), other."""
        path = self.req.path
        if path == AUTHORIZE:
            return "authorize"
        if path == TOKEN:
            grant = self.req.param("grant_type")
            if grant == "authorization_code" or (grant is None and self.req.param("code")):
                return "exchange"
            if grant == "refresh_token" or (grant is None and self.req.param("refresh_token")):
                return "refresh"
            return "token"
        kinds = {REVOKE: "revoke", USERINFO: "userinfo", OOB_PAGE: "oob", MANUAL_REVOKE: "manual"}
        return kinds.get(path, "other")

    @cached_property
    def params(self) -> dict[str, str]:
        """An authorization request's parameters (the consent form posts them in the URL)."""
        return dict(self.req.query)

    @property
    def client_id(self) -> str | None:
        if self.kind == "authorize":
            return self.params.get("client_id")
        return self.req.param("client_id")

    @cached_property
    def presented(self) -> str | None:
        """The code or token the request presents."""
        name = {"exchange": "code", "refresh": "refresh_token", "revoke": "token"}.get(self.kind)
        if name:
            return self.req.param(name)
        if self.kind == "userinfo":
            return _bearer(self.req)
        if self.kind == "oob":
            return self.req.query_value("code")
        return None

    @cached_property
    def near(self) -> tuple[str, Code | Token | None]:
        """(how the presented value relates to an issued one, that one): "" when it is one,
        changed/truncated/extended when it resembles one, unknown when neither."""
        value = self.presented
        if value is None:
            return NOT_APPLICABLE, None
        found = self.ledger.codes.get(value) or self.ledger.tokens.get(value)
        if found is not None:
            return "", found
        resemblance = self.ledger.issued.near(value)
        if resemblance is None:
            return "unknown", None
        form, issued = resemblance
        return form, self.ledger.codes.get(issued) or self.ledger.tokens.get(issued)

    @property
    def issued(self) -> Code | Token | None:
        return self.near[1]

    @property
    def role(self) -> str | None:
        return self.ledger.role(self.client_id)


def _bearer(req: ProxyRequest) -> str | None:
    """The token of a user information request, whatever scheme carries it."""
    scheme, _, value = (req.header("authorization") or "").partition(" ")
    if value.strip():
        return value.strip()
    if scheme and req.header("authorization"):
        return scheme  # no scheme word: the header is the token itself
    body = next((v for k, v in req.form() if k == "access_token"), None)
    return req.query_value("access_token") or body
