"""/_test/clock: moves the server's clock forward. Mounted only with --test-clock."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from . import inbound
from .answers import Answer
from .endpoints import respond
from .errors import ParameterError


async def clock(request: Request) -> Response:
    state = inbound.server(request)
    test_clock = state.test_clock
    assert test_clock is not None  # the route exists only with a test clock
    if request.method == "POST":
        try:
            advance = (await inbound.form_params(request)).get("advance", "")
        except ParameterError as error:
            return respond(Answer.json({"error": str(error)}, error.status))
        if not advance.isdigit() or len(advance) > 10:
            return respond(Answer.json({"error": "advance must be a whole number of seconds"}, 400))
        test_clock.advance(int(advance))
    return respond(Answer.json({"offset": test_clock.offset(), "now": test_clock.now()}))
