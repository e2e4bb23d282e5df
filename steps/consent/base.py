"""What a consent driver is: it takes the user through the authorization page and reports
where the browser ended, so scenarios never depend on how consent was actually given."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from urllib.parse import parse_qsl, urlsplit

import httpx

from steps.outcomes import NotChecked

#: What a person may be asked by the manual driver, the keys of `ConsentDriver.stats`.
PROMPT_KINDS = ("approve", "deny", "open", "revoke", "session")
#: Prompts of the drivers closed in this process (the run's figure for its reports: the
#: session's driver is closed before pytest_sessionfinish).
RUN_PROMPTS: dict[str, int] = dict.fromkeys(PROMPT_KINDS, 0)


class DriverError(NotChecked, RuntimeError):
    """The driver could not get through the pages (login refused, form not found, ...): the
    scenario's premise was not established, so its rule could not be checked."""


class SessionEnded(DriverError):
    """A handed-over browser session no longer logs the driver in (it met a login form)."""


class UnrecognisedPage(DriverError):
    """The driver stands on a login or consent form its preset does not describe: a setup
    error (fix the preset), never a page of the service for the scenario to judge."""


@dataclass(frozen=True)
class RedirectResult:
    """The browser was sent back to the application (or shown an out-of-band code).

    `params` are the query's, as the application's server receives them; the fragment never
    reaches a server, so what it carries is kept apart (`fragment`), as are the names the query
    gives more than once (`repeated`: RFC 6749 3.1 allows each parameter once)."""

    url: str | None
    code: str | None = None
    params: Mapping[str, str] = field(default_factory=dict)
    consent_shown: bool | None = None
    oob: bool = False
    fragment: Mapping[str, str] = field(default_factory=dict)
    repeated: tuple[str, ...] = ()

    @property
    def error(self) -> str | None:
        """The `error` parameter of an error redirect."""
        return self.params.get("error")

    @property
    def state(self) -> str | None:
        """The `state` parameter as the application receives it."""
        return self.params.get("state")

    @property
    def fragment_code(self) -> str | None:
        """A code the redirect carried only in its fragment, where no server sees it."""
        return None if self.code else self.fragment.get("code")

    @classmethod
    def from_url(cls, url: str, **kwargs: object) -> RedirectResult:
        """Read code, state and error from the query; the fragment's parameters apart."""
        parts = urlsplit(url)
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        names = [name for name, _ in pairs]
        repeated = tuple(sorted({name for name in names if names.count(name) > 1}))
        params = dict(pairs)
        fragment = dict(parse_qsl(parts.fragment, keep_blank_values=True))
        return cls(
            url=url,
            code=params.get("code"),
            params=params,
            fragment=fragment,
            repeated=repeated,
            **kwargs,  # type: ignore[arg-type]
        )

    def with_consent(self, shown: bool | None) -> RedirectResult:
        """The same result, noting whether the consent page was on the way."""
        return replace(self, consent_shown=shown)


@dataclass(frozen=True)
class ServicePage:
    """The browser stayed on a page of the service: an error page, or the consent page."""

    url: str
    status: int | None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    html: str = field(default="", repr=False)
    consent: bool = False


Outcome = RedirectResult | ServicePage


def page_headers(response: httpx.Response) -> dict[str, str]:
    """A page's headers by lower-case name, a repeated field joined as one list (RFC 9110
    5.3), so a check reads every value a browser would."""
    return {name: ", ".join(response.headers.get_list(name)) for name in response.headers}


def redirect_target(response: httpx.Response) -> str | None:
    """Where a redirect sends the browser: None when it is not one, or when it names several
    places (Chromium refuses such an answer: ERR_RESPONSE_HEADERS_MULTIPLE_LOCATION)."""
    locations = response.headers.get_list("location")
    if not response.is_redirect or len(locations) != 1:
        return None
    return str(response.url.join(locations[0]))


class ConsentDriver:
    """Base of the drivers: `open` shows what happens without a decision, `approve` and `deny`
    decide on the consent page when there is one."""

    name = "driver"
    #: Whether the driver can tell a consent page from an error page and read page headers.
    observes_pages = True
    #: Whether a visit costs no person's time: then checks whose answers vary take several
    #: samples (steps/scheduling/sampling.py); a manual run takes one and its report says so.
    visits_are_cheap = True

    def __init__(self) -> None:
        self.remaining: int | None = None  # estimated approvals left in the run (manual runs)
        #: How many prompts the run is expected to show a person (steps/run/approvals.py), for
        #: "prompt n of about N"; None outside a run.
        self.expected_prompts: int | None = None
        #: The rules the running scenario checks, with the first one's title: what a prompt
        #: serves (set per scenario by the suite's plugin).
        self.serving = ""
        #: Prompts a person was shown, per kind (PROMPT_KINDS); zero for automatic drivers.
        self.stats: dict[str, int] = dict.fromkeys(PROMPT_KINDS, 0)

    def open(self, authorize_url: str) -> Outcome:
        """Open the authorization URL as the logged-in user, deciding nothing."""
        raise NotImplementedError

    def approve(self, authorize_url: str) -> Outcome:
        """Open the URL and approve if the consent page asks."""
        raise NotImplementedError

    def deny(self, authorize_url: str) -> Outcome:
        """Open the URL and refuse on the consent page."""
        raise NotImplementedError

    def revoke_manually(self, client_id: str, scope: str | None = None) -> None:
        """Revoke the application's access on the user's own page of the website."""
        raise DriverError(f"the {self.name} driver cannot revoke access on the website")

    def check_login(self, authorize_url: str) -> None:
        """Preflight, once before any scenario: log the user in (e.g. by opening the URL,
        deciding nothing) and raise DriverError when the login is refused. The default checks
        nothing (a driver that cannot log in without a person must not ask one here)."""

    def prompts_for(self, visits: int) -> int:
        """Prompts a person will see for this many consent-page visits (none, for a driver
        that asks nobody)."""
        return visits if self.name == "manual" else 0

    def close(self) -> None:
        """Release whatever the driver holds (sessions, browsers)."""

    @property
    def prompts(self) -> int:
        """Prompts a person was shown in this run."""
        return sum(self.stats.values())

    def used_one(self) -> None:
        """Count down the estimate of approvals left."""
        if self.remaining is not None and self.remaining > 0:
            self.remaining -= 1
