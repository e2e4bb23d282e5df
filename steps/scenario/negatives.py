"""A refusal proves something only beside its positive twin.

A check that a request is refused passes on a deployment that refuses everything: an installed
application that cannot refresh at all "refuses a refresh without its client secret" too. So a
step that sends a request the service must refuse records it as a `Negative`: an accepted
request with one fault, and how to send that request without the fault. The check that judges
the refusal then asks for the twin (`require_twin`): when the same request without the fault is
refused too, the refusal proved nothing and the scenario could not be checked, naming the rule
that covers the twin's refusal (which then fails: no defect seen is set aside).

The twin's answer is kept on the Negative (a frozen object, so scenarios that replay a shared
premise share it: steps/run/twins.py), so it is sent once however many checks read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from steps.outcomes import PremiseFailed

#: Sends a request without its fault: "" when the service accepts it, else the rule that
#: covers the refusal (the one that says such a request is accepted).
TwinSender = Callable[[], str]


def twin(accepted: Callable[[], bool], see: str) -> TwinSender:
    """A twin whose refusal one rule covers, whatever the answer."""
    return lambda: "" if accepted() else see


@dataclass(frozen=True)
class Negative:
    """A request the service must refuse: an accepted one with one fault."""

    #: The fault, in the features' words ("its client secret in another case").
    fault: str
    #: Sends the request without the fault (see TwinSender).
    send_twin: TwinSender
    #: The twin's answer once sent (shared by the scenarios that replay a premise).
    outcome: dict[str, str] = field(default_factory=dict, compare=False)

    def refused_twin(self) -> str:
        """The rule covering the twin's refusal ("" when it was accepted), sent once."""
        if "see" not in self.outcome:
            self.outcome["see"] = self.send_twin()
        return self.outcome["see"]

    def require_twin(self) -> None:
        """Go on when the twin is accepted; else the scenario could not be checked."""
        see = self.refused_twin()
        if see:
            raise PremiseFailed(
                f"the same request without {self.fault} was refused too, so its refusal "
                "proves nothing",
                see=see,
            )


def require_twin(negative: Negative | None) -> None:
    """The twin of the scenario's negative request, if it sent one."""
    if negative is not None:
        negative.require_twin()
