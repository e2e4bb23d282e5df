"""How a presented value differs from the right one: the values of the dimensions that name a
difference (near_miss, invalidity's near forms, redirect_change, state).

Pure functions of strings, so the classifier's hardest part is unit-tested without a proxy. Each
answers with a value of features/dimensions.toml, or NOT_APPLICABLE when the presented value is
the right one (or none was presented)."""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from urllib.parse import SplitResult, unquote, urlsplit

from steps.rules.dimensions import NOT_APPLICABLE

OOB = "urn:ietf:wg:oauth:2.0:oob"
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]", "::1")
_UNRESERVED = set(string.ascii_letters + string.digits + "-._~")


def near_miss(presented: str | None, right: str) -> list[str]:
    """How a client secret differs from the client's right one (None: no secret sent); a
    last character changed in case only is both "changed" and "case"."""
    if presented is None or presented == right:
        return []
    if presented == "":
        return ["empty"]
    kinds = ["case"] if presented.lower() == right.lower() else []
    if presented == right[:-1]:
        kinds.append("truncated")
    elif presented[:-1] == right and len(presented) == len(right) + 1:
        kinds.append("extended")
    elif len(presented) == len(right) and presented[:-1] == right[:-1]:
        kinds.append("changed")
    elif right.startswith(presented):
        kinds.append("prefix")
    return kinds or ["other"]


class Issued:
    """The codes and tokens issued so far, indexed to find the one a presented value differs
    from only at its end (a lookup, not a scan: a run presents thousands of values)."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self.values: set[str] = set()
        self.stems: dict[str, str] = {}  # a value without its last character -> the value
        for value in values:
            self.add(value)

    def add(self, value: str) -> None:
        self.values.add(value)
        self.stems.setdefault(value[:-1], value)

    def near(self, presented: str) -> tuple[str, str] | None:
        """(form, the issued value): "changed" (its last character), "truncated" (one
        less), "extended" (one more); None when it resembles none."""
        same_stem = self.stems.get(presented[:-1])
        if same_stem is not None and len(same_stem) == len(presented) != 0:
            return "changed", same_stem
        if presented in self.stems:
            return "truncated", self.stems[presented]
        if presented[:-1] in self.values:
            return "extended", presented[:-1]
        return None


def near_form(presented: str, issued: Iterable[str]) -> tuple[str, str] | None:
    """How `presented` differs from an issued code or token only at its end (see `Issued`)."""
    return Issued(issued).near(presented)


def state_kinds(state: str | None) -> list[str]:
    """The kinds of characters a state holds: plain (unreserved characters only), reserved
    (other ASCII ones), unicode (beyond ASCII); a state may hold both of the last two."""
    if state is None:
        return []
    kinds = ["reserved"] if any(c.isascii() and c not in _UNRESERVED for c in state) else []
    kinds += ["unicode"] if not state.isascii() else []
    return kinds or ["plain"]


def is_loopback(parts: SplitResult) -> bool:
    return parts.scheme == "http" and (parts.hostname or "") in LOOPBACK_HOSTS


def allowed_redirect(presented: str, registered: str, installed: bool) -> bool:
    """Whether the service must accept this redirect URI (spec 4.1): exactly the registered
    one, or for an installed application the out-of-band URI or its localhost URI on any
    port."""
    if presented == registered:
        return True
    if not installed:
        return False
    if presented == OOB:
        return True
    return _without_port(presented) == registered and is_loopback(urlsplit(presented))


def redirect_change(presented: str | None, registered: str, installed: bool) -> str:
    """How a redirect URI differs from the registered one (features/dimensions.toml's
    redirect_change); an installed application's localhost URI on another port is compared
    as if on the registered one (its port is its own choice)."""
    if presented is None or allowed_redirect(presented, registered, installed):
        return NOT_APPLICABLE
    if presented == OOB:
        return "oob"
    given, right = urlsplit(presented), urlsplit(registered)
    if installed and given.port is not None:
        if is_loopback(given) and given.hostname == right.hostname:
            given = urlsplit(_without_port(presented))
        elif given.hostname != right.hostname:
            return "host_port"
    return _difference(given, right, registered)


def _difference(given: SplitResult, right: SplitResult, registered: str) -> str:
    text = given.geturl()
    if unquote(text) == registered:
        return "percent"
    if given.fragment and given._replace(fragment="").geturl() == registered:
        return "fragment"
    if given.query and given._replace(query="").geturl() == registered:
        return "query"
    if "@" in given.netloc:
        return "user" if given.hostname == right.hostname else "userinfo_host"
    if is_loopback(given) and not is_loopback(right):
        return "localhost"
    if given.scheme != right.scheme:
        return "scheme"
    if given.netloc != right.netloc and given.netloc.lower() == right.netloc.lower():
        return "host_case"
    if given.hostname != right.hostname:
        return _host_change(given.hostname or "", right.hostname or "")
    if given.port != right.port:
        return "port"
    return _path_change(given.path, right.path)


def _host_change(host: str, right: str) -> str:
    return "subdomain" if host.endswith("." + right) else "host"


def _path_change(path: str, right: str) -> str:
    if path == right + "/":
        return "slash"
    if re.search(r"/\.\.?(/|$)", path):
        return "dot_segment"
    if path.startswith(right + "/"):
        return "segment"
    if path.lower() == right.lower():
        return "path_case"
    return "path"


def _without_port(uri: str) -> str:
    """The URI without its port, its host spelled as given."""
    parts = urlsplit(uri)
    if parts.port is None:
        return uri
    return parts._replace(netloc=parts.netloc.rsplit(":", 1)[0]).geturl()
