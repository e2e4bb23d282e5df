"""Parameters in application/x-www-form-urlencoded text (a query string or a form body), read
strictly, for the endpoints clients call and for the pages alike.

Duplicates, bad encodings and oversized text are refused: RFC 6749 3.1 and 3.2 forbid repeating
a parameter, and we refuse the request rather than pick one. Bytes in, pairs out: no web
framework, so the protocol core (oauth/) and the pages read parameters the same way.
"""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

from .errors import ParameterError

MAX_BODY = 16 * 1024
MAX_QUERY = 8 * 1024
FORM_TYPE = "application/x-www-form-urlencoded"


def is_form_type(content_type: str) -> bool:
    """Whether a Content-Type header names the form encoding (its parameters ignored)."""
    return content_type.split(";", 1)[0].strip().lower() == FORM_TYPE


def parse_pairs(raw: bytes, limit: int) -> list[tuple[str, str]]:
    """Every pair, repeated names included (the caller decides)."""
    if len(raw) > limit:
        raise ParameterError("the request's parameters are too large", status=413)
    try:
        return _split(raw.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise ParameterError("parameters must be URL-encoded UTF-8") from None


def _split(text: str) -> list[tuple[str, str]]:
    """`parse_qsl(text, keep_blank_values=True, errors="strict")`, pair for pair, at a third
    of its cost: a name or value with neither '%' nor '+' is taken as it is (unquote would
    return it unchanged), and that is most of them (tokens and secrets are base64url)."""
    pairs: list[tuple[str, str]] = []
    for piece in text.split("&"):
        if not piece:
            continue
        name, _, value = piece.partition("=")
        if "%" in name or "+" in name:
            name = _unquote(name)
        if "%" in value or "+" in value:
            value = _unquote(value)
        pairs.append((name, value))
    return pairs


def _unquote(text: str) -> str:
    """`unquote(text.replace("+", " "), "utf-8", "strict")` for ASCII text (what `_split` is
    given): one run of bytes, decoded once, without unquote's regular-expression split."""
    return unquote_to_bytes(text.replace("+", " ")).decode("utf-8", "strict")


def single_valued(pairs: list[tuple[str, str]]) -> dict[str, str]:
    params: dict[str, str] = {}
    for name, value in pairs:
        if name in params:
            raise ParameterError(f"the parameter {name!r} is repeated")
        if "\x00" in value:
            raise ParameterError(f"the parameter {name!r} contains a NUL character")
        params[name] = value
    return params


def query_parameters(raw: bytes) -> dict[str, str]:
    """The parameters of a query string, each given once."""
    if not raw:  # the usual case: no query string, nothing to parse
        return {}
    return single_valued(parse_pairs(raw, MAX_QUERY))


def form_parameters(content_type: str, body: bytes | ParameterError) -> dict[str, str]:
    """The parameters of a form body, each given once; `body` is the error of a body that
    could not be read (too large), which the content type's error comes before."""
    if not is_form_type(content_type):
        raise ParameterError(f"the request body must be {FORM_TYPE}")
    if isinstance(body, ParameterError):
        raise body
    return single_valued(parse_pairs(body, MAX_BODY))
