"""A refusal proves something only beside its positive twin (steps/scenario/negatives.py)."""

from __future__ import annotations

import pytest

from steps.outcomes import PremiseFailed
from steps.scenario.negatives import Negative, require_twin, twin


def test_a_refused_twin_makes_the_refusal_could_not_be_checked_naming_its_rule() -> None:
    negative = Negative("a wrong client secret", twin(lambda: False, "REFRESH-NEW-ACCESS-TOKEN"))
    with pytest.raises(PremiseFailed) as raised:
        require_twin(negative)
    assert raised.value.see == "REFRESH-NEW-ACCESS-TOKEN"
    assert "without a wrong client secret was refused too" in raised.value.reason


def test_an_accepted_twin_lets_the_check_stand() -> None:
    require_twin(Negative("leaving out the code field", twin(lambda: True, "X")))
    require_twin(None)  # a scenario that sent no negative request


def test_the_twin_is_sent_once_for_every_scenario_that_replays_the_premise() -> None:
    sent: list[int] = []

    def send() -> str:
        sent.append(1)
        return ""

    negative = Negative("the GET method", send)
    for _ in range(3):
        negative.require_twin()
    assert sent == [1]
