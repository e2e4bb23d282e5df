"""The baseline of every throughput ratio: a bare Starlette application with one JSON route.

Served by the same uvicorn, with the same TLS certificate and settings as the reference
server (see `servers.py`), so a ratio to it measures what the server's own code costs.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

DOCUMENT = {"status": "ok", "service": "baseline", "version": 1}


async def hello(request: Request) -> JSONResponse:
    return JSONResponse(DOCUMENT)


app = Starlette(routes=[Route("/", hello, methods=["GET", "POST"])])
