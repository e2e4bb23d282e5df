"""The `manual` driver: a person approves in their own browser and pastes where it ended.

Used against a live deployment where no automation is wanted. A person is asked only when the
service wants its user: every visit is first followed anonymously (no session, no login), and
an outcome the service gives before any login (an error redirect, an error page) is taken as it
is. Every prompt is counted by kind (`stats`), and numbered on screen."""

from __future__ import annotations

import contextlib
from urllib.parse import parse_qsl, urlsplit

from client_kit.redaction import is_secret_name
from steps.consent.anonymous import AnonymousLook
from steps.consent.answers import Request, ServicePages, misfit
from steps.consent.base import (
    RUN_PROMPTS,
    ConsentDriver,
    DriverError,
    Outcome,
    RedirectResult,
    ServicePage,
)
from steps.consent.console import NoTerminal, OperatorConsole
from steps.consent.handover import Handover
from steps.consent.presets import Preset
from steps.http.html import text_of
from steps.http.layer import HttpLayer
from steps.profiles.profile import TargetProfile

#: Any `<code>` element, for an out-of-band page when no preset says where the code is.
ANY_CODE = "code"
__all__ = ["ManualDriver", "NoTerminal", "OperatorConsole"]


class ManualDriver(ConsentDriver):
    """Prints the authorization URL and reads back the redirected URL or the shown code."""

    name = "manual"
    observes_pages = False
    visits_are_cheap = False

    def __init__(
        self,
        profile: TargetProfile,
        console: OperatorConsole,
        http: HttpLayer | None = None,
        preset: Preset | None = None,
    ) -> None:
        super().__init__()
        self.profile = profile
        self.console = console
        self.preset = preset
        self.http = http
        self.look = AnonymousLook(http, profile.base_url) if http is not None else None
        oob_path = preset.oob_path if preset else "/oauth2/oob"
        self.service = ServicePages(urlsplit(profile.base_url).netloc, oob_path)
        #: Codes the person pasted (a code pasted again is a stale clipboard, asked again).
        self.pasted_codes: set[str] = set()
        #: Answers that did not fit their prompt and were asked for again.
        self.asked_again = 0
        self.handover = self._handover(profile, http, preset)
        if self.handover is not None:  # the form driver answers the pages: cheap, readable
            self.observes_pages = self.visits_are_cheap = True
        console.check()

    def _handover(
        self, profile: TargetProfile, http: HttpLayer | None, preset: Preset | None
    ) -> Handover | None:
        """The person's session handed over once (`[consent.manual] hand_over_session`)."""
        if not profile.consent.manual.get("hand_over_session"):
            return None
        if http is None or preset is None:
            raise ValueError(
                "[consent.manual] hand_over_session needs a preset for the service's pages "
                '([consent] preset = "bundled" or "musicbrainz", or [consent.form])'
            )
        return Handover(profile, http, preset, lambda text: self._ask("session", text))

    def prompts_for(self, visits: int) -> int:
        """Each visit is a prompt; with a session handed over, the one handover."""
        return 1 if self.handover is not None else visits

    def open(self, authorize_url: str) -> Outcome:
        """Ask what the browser shows without the operator deciding anything."""
        if self.handover is not None:
            return self.handover.run(lambda pages: pages.open(authorize_url))
        if (seen := self._anonymous(authorize_url)) is not None:
            return seen
        return self._answer(
            "open",
            authorize_url,
            f"Open this URL as {self.profile.user.username!r}, but do NOT approve or deny:\n"
            f"  {authorize_url}\nPaste the address the browser was sent to, or type 'consent' "
            "if the service asks for consent, or 'error' if it shows an error page:\n> ",
        )

    def approve(self, authorize_url: str) -> Outcome:
        """Ask the operator to approve."""
        if self.handover is not None:
            return self.handover.run(lambda pages: pages.approve(authorize_url))
        return self._decide(authorize_url, "approve", "APPROVE")

    def deny(self, authorize_url: str) -> Outcome:
        """Ask the operator to refuse."""
        if self.handover is not None:
            return self.handover.run(lambda pages: pages.deny(authorize_url))
        return self._decide(authorize_url, "deny", "DENY (cancel)")

    def revoke_manually(self, client_id: str, scope: str | None = None) -> None:
        """Ask the operator to revoke the application on the website."""
        if self.handover is not None:
            self.handover.run(lambda pages: pages.revoke_manually(client_id, scope))
            return
        scope_text = f" (scopes: {scope})" if scope else ""
        self._ask(
            "revoke",
            f"On the website, as {self.profile.user.username!r}, revoke the access of the "
            f"application with Client ID {client_id}{scope_text}. Press Enter when done.\n> ",
        )

    def close(self) -> None:
        """Say how many times the person was asked (the run's own count), and add it to the
        run's figure (`RUN_PROMPTS`)."""
        if self.handover is not None:
            self.handover.close()
        for kind, count in self.stats.items():
            RUN_PROMPTS[kind] += count
        if self.prompts:
            with contextlib.suppress(DriverError):
                self.console.tell(f"\n{self.summary()}\n")

    def summary(self) -> str:
        """The prompts of the run, in a line."""
        kinds = ", ".join(f"{kind} {count}" for kind, count in self.stats.items())
        again = f"; {self.asked_again} answer(s) asked for again" if self.asked_again else ""
        return f"[manual driver: {self.prompts} prompt(s) in this run: {kinds}{again}]"

    def _decide(self, authorize_url: str, kind: str, verb: str) -> Outcome:
        if (seen := self._anonymous(authorize_url)) is not None:
            return seen
        outcome = self._answer(
            kind,
            authorize_url,
            f"Open this URL as {self.profile.user.username!r} and {verb}:\n  {authorize_url}\n"
            "Paste the address the browser was sent to (it may fail to load: copy it anyway), "
            "or the code the page shows, or 'error' if the service shows an error page:\n> ",
        )
        self.used_one()
        return outcome

    def _anonymous(self, authorize_url: str) -> Outcome | None:
        return self.look.outcome(authorize_url) if self.look is not None else None

    def _ask(self, kind: str, text: str) -> str:
        self.stats[kind] += 1
        return self.console.ask(f"\n{self._header(kind)}\n{text}")

    def _header(self, kind: str) -> str:
        """`[prompt 12 of about 48: approve] for RULE-ID: its title` (the estimate, when the
        run made one, and the rule the running scenario serves)."""
        number = self.prompts
        if self.expected_prompts is not None:
            number_text = f"{number} of about {max(number, self.expected_prompts)}"
        else:
            number_text = str(number)
        serving = f" for {self.serving}" if self.serving else ""
        return f"[prompt {number_text}: {kind}]{serving}"

    def _answer(self, kind: str, authorize_url: str, text: str) -> Outcome:
        """Ask, and ask again while the answer does not fit the request (answers.py); an
        answer pasted twice unchanged stands."""
        answer = self._ask(kind, text)
        request = Request.of(authorize_url)
        while reason := misfit(answer, request, self.service, self.pasted_codes):
            self.asked_again += 1
            again = self.console.ask(
                f"\n[prompt {self.prompts}, again] That does not fit this prompt: {reason}.\n"
                f"If the browser really ended there, paste it again; otherwise paste where the "
                f"browser ended for this URL:\n  {authorize_url}\n> "
            )
            if again == answer:
                break
            answer = again
        return self._outcome(answer, authorize_url)

    def _outcome(self, answer: str, authorize_url: str) -> Outcome:
        self._learn(answer)
        if answer.lower() in ("error", "consent"):
            return ServicePage(authorize_url, None, consent=answer.lower() == "consent")
        if answer.startswith(("http://", "https://")) and self._on_service(answer):
            return self._service_page(answer)
        if answer.startswith(("http://", "https://", "urn:")):
            result = RedirectResult.from_url(answer)
            self._remember(result.code or result.fragment.get("code"))
            return result
        if not answer:
            raise DriverError("empty answer from the operator")
        self._remember(answer)
        return RedirectResult(url=None, code=answer, oob=True)

    def _remember(self, code: str | None) -> None:
        if code:
            self.pasted_codes.add(code)

    def _learn(self, answer: str) -> None:
        """Everything a person types is a secret to the masker: a pasted code, and the
        secret parameters (the code) of a pasted address."""
        if self.http is None or answer.lower() in ("error", "consent"):
            return
        if not answer.startswith(("http://", "https://", "urn:")):
            self.http.redactor.learn(answer)
            return
        parts = urlsplit(answer)
        for query in (parts.query, parts.fragment):
            for name, value in parse_qsl(query, keep_blank_values=True):
                if is_secret_name(name):
                    self.http.redactor.learn(value)

    def _on_service(self, url: str) -> bool:
        return urlsplit(url).netloc == self.service.netloc

    def _service_page(self, url: str) -> Outcome:
        """A pasted address of the service itself: the out-of-band page (its code from the
        address, or else read from the page), or the page the browser stayed on."""
        params = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
        code = params.get("code") or None
        if code is None and urlsplit(url).path == self.service.oob_path:
            code = self._code_on_page(url)
        if code is None and urlsplit(url).path != self.service.oob_path:
            return ServicePage(url, None)
        self._remember(code)
        return RedirectResult(url=url, code=code, params=params, oob=True)

    def _code_on_page(self, url: str) -> str | None:
        if self.http is None:
            return None
        html = self.http.request("GET", url).text
        return text_of(html, self.preset.oob_code if self.preset else ANY_CODE) or None
