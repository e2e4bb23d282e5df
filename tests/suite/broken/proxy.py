"""A TLS proxy in front of the bundled server that breaks one rule at a time.

The proxy forwards every request to the real server and rewrites the base URLs in both
directions, so without a mutation the target is exactly as conforming as the server behind
it. `POST /_proxy/mutation` (form field `name`) switches the mutation and resets its state,
so one proxy process serves the whole test module; `GET` on it also tells what the mutation
counted (a flaky one: its tries and how often it showed). A second, plain-HTTP listener
forwards too: it is what the "plain HTTP served" mutation points the profile's plain_http_url
at.

Run: python -m tests.suite.broken.proxy --upstream-profile FILE --work-dir DIR [--targets MODULE]
(writes DIR/proxy.json = {"base_url", "plain_url", "ca_file"} once listening). `--targets`
imports a module that registers more targets (registry.RESOLVERS: the generated proof's).
"""

from __future__ import annotations

import argparse
import asyncio
import http.cookiejar
import importlib
import json
import socket
import ssl
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.suite.broken.exchange import Context, Forward, ProxyRequest, ProxyResponse
from tests.suite.broken.mutations import find

HOP_HEADERS = {
    "host",
    "content-length",
    "connection",
    "keep-alive",
    "transfer-encoding",
    "accept-encoding",
    "content-encoding",
    "upgrade",
}
READY_FILE = "proxy.json"
METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]


@dataclass
class Proxy:
    """Forwarding with base-URL rewriting, plus the switchable mutation."""

    upstream: str
    upstream_ca: str
    profile: dict[str, Any]
    public_base: str = ""
    mutation: str = "none"
    state: dict[str, Any] = field(default_factory=dict)
    client: httpx.AsyncClient | None = None

    def context(self) -> Context:
        return Context(profile=self.profile, state=self.state, public_base=self.public_base)

    async def forward(self, req: ProxyRequest) -> ProxyResponse:
        """Send the (possibly mutated) request upstream; the answer with URLs rewritten back."""
        assert self.client is not None
        headers = [
            (k, v.replace(self.public_base, self.upstream))
            for k, v in req.headers
            if k.lower() not in HOP_HEADERS
        ]
        query = req.query_string()
        url = self.upstream + req.path + (f"?{query}" if query else "")
        try:
            upstream = await self.client.request(req.method, url, headers=headers, content=req.body)
        except httpx.RemoteProtocolError:
            # The server closed a pooled connection it had counted idle (it does at its
            # connection cap) just as the request went out: unanswered, so sent once more.
            upstream = await self.client.request(req.method, url, headers=headers, content=req.body)
        out = [(k, v) for k, v in upstream.headers.multi_items() if k.lower() not in HOP_HEADERS]
        out = [(k, v.replace(self.upstream, self.public_base)) for k, v in out]
        body = upstream.content
        if _is_text(upstream.headers.get("content-type", "")):
            body = body.replace(self.upstream.encode(), self.public_base.encode())
        return ProxyResponse(upstream.status_code, out, body)

    async def handle(self, request: Request) -> Response:
        """One request through the current mutation."""
        req = ProxyRequest(
            method=request.method,
            path=request.url.path,
            query=parse_qsl(request.url.query, keep_blank_values=True),
            headers=[(k, v) for k, v in request.headers.items()],
            body=await request.body(),
            raw_query=request.url.query,
            scheme=request.url.scheme,
        )
        found = find(self.mutation)
        assert found is not None
        handler = found.handler
        forward: Forward = self.forward
        resp = await handler(req, forward, self.context())
        return to_starlette(resp)

    async def control(self, request: Request) -> Response:
        """Switch the mutation (POST name=...) or read the current one and its counters."""
        if request.method == "POST":
            form = dict(parse_qsl((await request.body()).decode()))
            name = form.get("name", "none")
            if find(name) is None:
                return Response(f"unknown mutation {name}\n", status_code=404)
            self.mutation, self.state = name, {}
        body = {"mutation": self.mutation, "counters": self.context().counters}
        return Response(json.dumps(body), media_type="application/json")


def _no_cookies() -> http.cookiejar.CookieJar:
    """A cookie jar that keeps nothing: the proxy passes each client's cookies through and
    must never add the ones an earlier answer set (another client's session)."""
    return http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))


def _is_text(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind.startswith("text/") or kind.endswith("json") or kind.endswith("xml")


def to_starlette(resp: ProxyResponse) -> Response:
    """A Starlette response carrying exactly the given headers (Set-Cookie may repeat)."""
    response = Response(content=resp.body, status_code=resp.status)
    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in resp.headers]
    if resp.status not in (204, 304) and resp.status >= 200:
        raw.append((b"content-length", str(len(resp.body)).encode()))
    response.raw_headers = raw
    return response


def build_app(proxy: Proxy) -> Starlette:
    routes = [
        Route("/_proxy/mutation", proxy.control, methods=["GET", "POST"]),
        Route("/{path:path}", proxy.handle, methods=METHODS),
    ]
    return Starlette(routes=routes)


def _listen() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it: an answer's head and body leave at once (Nagle held
    # the body back until the client's delayed ACK of the head: 40 ms an answer).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def _server(app: Starlette, tls: tuple[str, str] | None) -> uvicorn.Server:
    options: dict[str, Any] = {
        "log_level": "warning",
        "lifespan": "off",
        "server_header": False,  # the upstream's own headers pass through
        "date_header": False,
    }
    if tls:
        options |= {"ssl_certfile": tls[0], "ssl_keyfile": tls[1]}
    return uvicorn.Server(uvicorn.Config(app, **options))


async def serve(upstream_profile: Path, work_dir: Path) -> None:
    """Listen over TLS (and plain HTTP), announce the URLs, forward until killed."""
    from reference_server.tls import ensure_certificates

    profile = tomllib.loads(upstream_profile.read_text(encoding="utf-8"))
    tls = ensure_certificates(work_dir, "127.0.0.1")
    secure, plain = _listen(), _listen()
    base = f"https://127.0.0.1:{secure.getsockname()[1]}"
    proxy = Proxy(profile["base_url"].rstrip("/"), profile["ca_file"], profile, base)
    verify = ssl.create_default_context(cafile=proxy.upstream_ca)
    async with httpx.AsyncClient(
        verify=verify, follow_redirects=False, timeout=30, cookies=_no_cookies()
    ) as client:
        proxy.client = client
        app = build_app(proxy)
        servers = [_server(app, (str(tls.cert), str(tls.key))), _server(app, None)]
        ready = {
            "base_url": base,
            "plain_url": f"http://127.0.0.1:{plain.getsockname()[1]}",
            "ca_file": str(tls.ca),
        }
        tasks = [
            asyncio.create_task(servers[0].serve(sockets=[secure])),
            asyncio.create_task(servers[1].serve(sockets=[plain])),
        ]
        while not all(s.started for s in servers):
            await asyncio.sleep(0.02)
        (work_dir / READY_FILE).write_text(json.dumps(ready))
        await asyncio.gather(*tasks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--upstream-profile", type=Path, required=True)
    parser.add_argument("--work-dir", type=Path, required=True)
    parser.add_argument("--targets", action="append", default=[], help="module to import")
    args = parser.parse_args()
    for module in args.targets:
        importlib.import_module(module)
    args.work_dir.mkdir(parents=True, exist_ok=True)
    asyncio.run(serve(args.upstream_profile, args.work_dir))


if __name__ == "__main__":
    main()
