"""A refusal proves something only beside its positive twin.

A check that a request is refused passes on a deployment that refuses everything: an installed
application that cannot refresh at all "refuses a refresh without its client secret" too. So a
step that sends a request the service must refuse records it as a `Negative`: an accepted
request with one fault, and how to send that request without the fault. The check that judges
the refusal then asks for the twin (`require_twin`): when the same request without the fault is
refused too, the refusal proved nothing and the scenario could not be checked, naming the rule
that says the faultless request is accepted.

The twin's answer is kept on the Negative (a frozen object, so scenarios that replay a shared
premise share it: steps/run/twins.py), so it is sent once however many checks read it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from steps.outcomes import require


@dataclass(frozen=True)
class Negative:
    """A request the service must refuse: an accepted one with one fault."""

    #: The fault, in the features' words ("its client secret in another case").
    fault: str
    #: The rule that says the request without the fault is accepted.
    see: str
    #: Sends the request without the fault; True when the service accepts it.
    send_twin: Callable[[], bool]
    #: The twin's answer once sent (shared by the scenarios that replay a premise).
    outcome: dict[str, bool] = field(default_factory=dict, compare=False)

    def twin_accepted(self) -> bool:
        """Whether the service accepts the request without the fault (sent once)."""
        if "accepted" not in self.outcome:
            self.outcome["accepted"] = self.send_twin()
        return self.outcome["accepted"]

    def require_twin(self) -> None:
        """Go on when the twin is accepted; else the scenario could not be checked."""
        require(
            self.twin_accepted(),
            f"the same request without {self.fault} was refused too, so its refusal proves nothing",
            see=self.see,
        )


def require_twin(negative: Negative | None) -> None:
    """The twin of the scenario's negative request, if it sent one."""
    if negative is not None:
        negative.require_twin()
