"""How the suite reads the service's answers: strictly in the check that states a format rule,
as leniently as a real client library everywhere else.

A scenario's *premise* (a grant to start from, a refresh that yields a token, a token that
works) is read the way an application's OAuth library reads it: a token answer in JSON or, as
some old providers send it, form-encoded; JSON whatever the content type says. Only the *check*
of the rule that states the format reads strictly (`strict_json`): the media type
`application/json`, UTF-8, a JSON object with no name given twice.

No reader is more lenient than the rules: every leniency a premise uses names the rule that
judges the same answer strictly (`LENIENCIES`), and the exchange it was read from carries a note
saying so, which the reports show. So a deployment whose refresh answer is form-encoded fails
RULE.TOKEN_RESPONSE_ACCESS_TOKEN on its refresh variant, and nothing else.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import httpx

from steps.outcomes import PremiseFailed
from steps.rules.ids import RULE

#: Leniency -> the rule whose check reads the same answer strictly (and fails on it).
LENIENCIES = {
    "a form-encoded token answer": RULE.TOKEN_RESPONSE_ACCESS_TOKEN,
    "a JSON token answer without the application/json media type": RULE.TOKEN_RESPONSE_ACCESS_TOKEN,
    "a JSON token answer that is not strict JSON": RULE.TOKEN_RESPONSE_ACCESS_TOKEN,
    "user information without the user name": RULE.USERINFO_HEADER,
    "a code only in the redirect's fragment": RULE.CODE_IN_REDIRECT,
}
#: The key under which HttpLayer hangs the recorded exchange on a response (for notes).
EXCHANGE_KEY = "mb_oauth_exchange"
JSON_MEDIA_TYPE = "application/json"


def media_type(response: httpx.Response) -> str:
    """The Content-Type's type/subtype in lower case ("" when there is none)."""
    value: str = response.headers.get("content-type", "")
    return value.split(";", 1)[0].strip().lower()


def json_body(response: httpx.Response) -> dict[str, Any] | None:
    """The body as a JSON object, whatever its content type says, read from its bytes as
    client libraries do (a byte order mark, UTF-16 or -32 detected); None when it is not one."""
    try:
        body = json.loads(response.content)
    except ValueError:
        try:
            body = json.loads(response.text)
        except ValueError:
            return None
    return body if isinstance(body, dict) else None


@dataclass(frozen=True)
class StrictJson:
    """A body read as RFC 6749 5.1 and RFC 8259 want it: the object, or why it is not one."""

    body: dict[str, Any] | None
    problem: str = ""


def strict_json(response: httpx.Response) -> StrictJson:
    """The body as a JSON object sent as `application/json` in UTF-8 without a byte order
    mark (RFC 8259 8.1), no member named twice."""
    kind = media_type(response)
    if kind != JSON_MEDIA_TYPE:
        return StrictJson(None, f"content type {response.headers.get('content-type')!r}")
    try:
        text = response.content.decode("utf-8")
    except UnicodeDecodeError:
        return StrictJson(None, "a body that is not UTF-8")
    if text.startswith("\ufeff"):
        return StrictJson(None, "a body that starts with a byte order mark")
    try:
        body = json.loads(text, object_pairs_hook=_no_repeated_names)
    except _RepeatedName as error:
        return StrictJson(None, f"the member {error} given twice")
    except ValueError as error:
        return StrictJson(None, f"not JSON ({error})")
    if not isinstance(body, dict):
        return StrictJson(None, f"a JSON {type(body).__name__}, not an object")
    return StrictJson(body)


class _RepeatedName(ValueError):
    pass


def _no_repeated_names(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    names = [name for name, _ in pairs]
    repeated = next((name for name in names if names.count(name) > 1), None)
    if repeated is not None:
        raise _RepeatedName(repeated)
    return dict(pairs)


@dataclass(frozen=True)
class TokenAnswer:
    """The fields of a token endpoint's answer as a client library reads them, and the
    leniency (a key of LENIENCIES) it took to read them, if any."""

    fields: dict[str, Any]
    leniency: str = ""

    @property
    def access_token(self) -> str | None:
        """The access token, when the answer carries one as a string."""
        value = self.fields.get("access_token")
        return value if isinstance(value, str) and value else None

    @property
    def refresh_token(self) -> str | None:
        """The refresh token, when the answer carries one as a string."""
        value = self.fields.get("refresh_token")
        return value if isinstance(value, str) and value else None


def read_token_answer(response: httpx.Response) -> TokenAnswer:
    """The answer's fields: strict JSON, else lenient JSON, else a form-encoded body."""
    if strict_json(response).body is not None:
        return TokenAnswer(json_body(response) or {})
    body = json_body(response)
    if body is not None:
        leniency = (
            "a JSON token answer that is not strict JSON"
            if media_type(response) == JSON_MEDIA_TYPE
            else "a JSON token answer without the application/json media type"
        )
        return TokenAnswer(body, leniency)
    form = _form_fields(response.text)
    return TokenAnswer(form, "a form-encoded token answer" if form else "")


def _form_fields(text: str) -> dict[str, str]:
    """A body of name=value pairs (an old provider's token answer), or {}."""
    text = text.strip()
    if not text or "=" not in text or any(c in text for c in "<>{}\n"):
        return {}
    try:
        return dict(parse_qsl(text, keep_blank_values=True, strict_parsing=True))
    except ValueError:
        return {}


def granted(response: httpx.Response) -> TokenAnswer | None:
    """The tokens of a successful answer (2xx with an access token), read leniently and the
    leniency noted on the exchange; None when the request was not granted."""
    answer = read_token_answer(response)
    if not response.is_success or answer.access_token is None:
        return None
    if answer.leniency:
        note(response, answer.leniency, LENIENCIES[answer.leniency])
    return answer


def require_granted(response: httpx.Response, what: str, *, see: str) -> TokenAnswer:
    """A premise: the request was granted (read leniently); else could not be checked."""
    answer = granted(response)
    if answer is None:
        raise PremiseFailed(f"{what} answered {response.status_code} without tokens", see=see)
    return answer


def strict_token_fields(response: httpx.Response, what: str, *, see: str) -> dict[str, Any]:
    """The one strict reading of a token answer that every check of its fields shares: granted
    (a premise, read leniently: `see` judges a refusal), then the strict JSON object (a body
    that is not one, a member named twice included, is RULE.TOKEN_RESPONSE_ACCESS_TOKEN's:
    no check reads a field of it as a lenient client would)."""
    require_granted(response, what, see=see)
    read = strict_json(response)
    if read.body is None:
        raise PremiseFailed(f"{what} answered {read.problem}", see=RULE.TOKEN_RESPONSE_ACCESS_TOKEN)
    return read.body


def _values(body: Any) -> list[str]:
    """Every string value of a JSON document (the user information's shape is not shown)."""
    if isinstance(body, dict):
        return [v for item in body.values() for v in _values(item)]
    if isinstance(body, list):
        return [v for item in body for v in _values(item)]
    return [body] if isinstance(body, str) else []


def reveals(response: httpx.Response, value: str) -> bool:
    """Whether an answer holds a value: among the strings of a JSON document, anywhere in any
    other body (spec 4.5 does not show the shape of the user information)."""
    body = json_body(response)
    return value in _values(body) if body is not None else value in response.text


def directives(response: httpx.Response, header: str) -> set[str]:
    """The directive names of a list-valued header (Cache-Control, Pragma), in lower case,
    over all its fields (RFC 9110 5.3: repeated fields are one comma-separated list)."""
    names = set()
    for value in response.headers.get_list(header):
        for item in value.split(","):
            name = item.split("=", 1)[0].strip().lower()
            if name:
                names.add(name)
    return names


def issued_tokens(response: httpx.Response) -> list[str]:
    """The tokens an answer hands out, whatever its status or encoding: a refusal that still
    carries a token, JSON or form-encoded, has issued one."""
    answer = read_token_answer(response)
    return [name for name in ("access_token", "refresh_token") if answer.fields.get(name)]


def lenient_note(what: str, rule: str) -> str:
    """The words of a note on a leniency: what was read so, and which rule judges it."""
    return f"read leniently: {what} ({rule} judges it)"


def note(response: httpx.Response, what: str, rule: str) -> None:
    """Note on the response's recorded exchange that a premise read it leniently, and which
    rule judges that (the reports show the note with the evidence)."""
    exchange = response.extensions.get(EXCHANGE_KEY)
    if exchange is not None:
        exchange.note(lenient_note(what, rule))


# --- WWW-Authenticate (RFC 9110 11.6.1) ---------------------------------------------------

_TOKEN68_OR_PARAM = re.compile(r"""\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*=""")
_SCHEME = re.compile(r"\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:\s+|$)")


def _split_commas(value: str) -> list[str]:
    """Comma-separated items of a header value, commas inside quoted strings kept."""
    items, current, quoted, escaped = [], "", False, False
    for char in value:
        if escaped:
            escaped = False
        elif char == "\\" and quoted:
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            items.append(current)
            current = ""
            continue
        current += char
    return [*items, current]


def challenges(response: httpx.Response) -> list[str]:
    """Every challenge of every WWW-Authenticate header, one string each (RFC 9110 11.6.1).
    A server may send several headers (musicbrainz-server: Digest, then Bearer) or several
    challenges in one; httpx joins repeated headers with ", ", so both are split here."""
    found: list[str] = []
    for header in response.headers.get_list("www-authenticate"):
        for item in _split_commas(header):
            starts_challenge = _SCHEME.match(item) and not _TOKEN68_OR_PARAM.match(item)
            if starts_challenge or not found:
                found.append(item.strip())
            else:
                found[-1] += "," + item
    return [c for c in found if c]


def auth_param(challenge: str, name: str) -> str | None:
    """An auth-param of a challenge (quoted or a token), by name, case-insensitively."""
    found = re.search(
        rf'(?:^|[\s,]){name}\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^",\s]*))', challenge, re.I
    )
    if found is None:
        return None
    return found.group(1) if found.group(1) is not None else found.group(2)
