"""The suite's HTTP layer against a hostile deployment: an answer too large is not read whole,
one too slow is abandoned at its deadline (a fresh connection or one the pool reuses), and
either makes the scenario "could not be checked" with the reason; transport failures stay
httpx's (steps/http/bounded.py), except a request lost with an idle kept-alive connection,
which is sent again on a new one.

The hostile stand-in is the kit's (tests/kit/hostile.py): real TLS, real sockets. Its drips
end after a while, so that a layer without a deadline reads them to the end (and fails these
tests) instead of hanging."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from steps.http.layer import HttpLayer
from steps.outcomes import NotChecked
from tests.kit.hostile import JSON_HEAD, Behaviour, Exchange, _read_head, answer, endless, hostile

TOKEN = "/oauth2/token"
PAGE = "/oauth2/authorize"
MB = 1024 * 1024
#: A short deadline for these tests (the suite's is 20 s).
DEADLINE = 1.0
#: How long a drip lasts: long past the deadline, short enough for a layer without one.
DRIP_BYTES, DRIP_INTERVAL = 24, 0.25


def layer_for(server: object) -> HttpLayer:
    layer = HttpLayer(server.ca_file, answer_paths=[TOKEN])  # type: ignore[attr-defined]
    layer.reader.deadline = DEADLINE
    return layer


def finite_drip(head: bool) -> Behaviour:
    """One byte every DRIP_INTERVAL, DRIP_BYTES in all: of the head, or of the body."""

    def run(exchange: Exchange) -> None:
        body = '{"error":"' + "x" * (DRIP_BYTES - 12) + '"}'
        text = JSON_HEAD.format(status="400 Bad Request") + f"Content-Length: {len(body)}\r\n\r\n"
        if not head:
            exchange.send(text)
            text = ""
        for char in text + body:
            if not exchange.send(char) or not exchange.wait(DRIP_INTERVAL):
                return

    return run


def answered_then_drip(exchange: Exchange) -> None:
    """A normal answer on a connection kept alive, then a drip for the next request on it."""
    body = b"{}"
    exchange.send(JSON_HEAD.format(status="200 OK") + f"Content-Length: {len(body)}\r\n\r\n")
    exchange.send(body)
    _read_head(exchange.sock)
    finite_drip(head=False)(exchange)


def test_an_answer_larger_than_its_bound_is_not_read_whole(tmp_path: Path) -> None:
    with hostile(tmp_path) as server:
        server.behaviours[TOKEN] = endless(50 * MB, declare_length=False)
        layer = layer_for(server)
        with pytest.raises(NotChecked, match="larger than 64 kB"):
            layer.request("POST", server.base_url + TOKEN, data={"grant_type": "x"})
        assert server.sent_bytes < 50 * MB
        (exchange,) = layer.exchanges
        assert exchange.status == 200 and "larger than 64 kB" in str(exchange.error)


def test_a_declared_length_over_the_bound_is_refused_before_reading(tmp_path: Path) -> None:
    with hostile(tmp_path) as server:
        server.behaviours[PAGE] = endless(200 * MB, declare_length=True)
        with pytest.raises(NotChecked, match=r"larger than 1,024 kB \(it declared 209,715,200"):
            layer_for(server).request("GET", server.base_url + PAGE)


def test_a_page_is_read_up_to_its_bound(tmp_path: Path) -> None:
    with hostile(tmp_path) as server:
        server.behaviours[PAGE] = endless(900 * 1024, declare_length=False)
        server.behaviours["/big"] = endless(2 * MB, declare_length=False)
        layer = layer_for(server)
        assert len(layer.request("GET", server.base_url + PAGE).content) == 900 * 1024
        with pytest.raises(NotChecked, match="larger than 1,024 kB"):
            layer.request("GET", server.base_url + "/big")


@pytest.mark.parametrize("phase", ["head", "body"])
def test_a_drip_is_abandoned_at_the_deadline(tmp_path: Path, phase: str) -> None:
    with hostile(tmp_path) as server:
        server.behaviours[TOKEN] = finite_drip(head=phase == "head")
        layer = layer_for(server)
        with pytest.raises(NotChecked, match=f"did not finish within {DEADLINE:g} s"):
            layer.request("POST", server.base_url + TOKEN, data={"grant_type": "x"})
        assert f"did not finish within {DEADLINE:g} s" in str(layer.exchanges[0].error)


def test_a_drip_on_a_reused_connection_is_abandoned_too(tmp_path: Path) -> None:
    with hostile(tmp_path) as server:
        server.behaviours[TOKEN] = answered_then_drip
        layer = layer_for(server)
        assert layer.request("POST", server.base_url + TOKEN, data={"a": "1"}).status_code == 200
        with pytest.raises(NotChecked, match="did not finish"):
            layer.request("POST", server.base_url + TOKEN, data={"a": "2"})
        assert len(server.requests) == 1  # the second went over the same connection
        server.behaviours[TOKEN] = answer("200 OK", "{}")
        assert layer.request("POST", server.base_url + TOKEN, data={"a": "3"}).status_code == 200


def test_an_endpoint_late_three_times_is_not_asked_again(tmp_path: Path) -> None:
    with hostile(tmp_path) as server:
        server.behaviours[TOKEN] = finite_drip(head=False)
        layer = layer_for(server)
        for _ in range(3):
            with pytest.raises(NotChecked, match="did not finish within"):
                layer.request("POST", server.base_url + TOKEN, data={"a": "1"})
        with pytest.raises(NotChecked, match=r"did not finish 3 answers .* no longer asks it"):
            layer.request("POST", server.base_url + TOKEN, data={"a": "1"})
        assert len(server.requests) == 3
        server.behaviours[PAGE] = answer("200 OK", "{}")
        assert layer.request("GET", server.base_url + PAGE).status_code == 200


def test_a_refused_connection_stays_a_transport_error(tmp_path: Path) -> None:
    with hostile(tmp_path) as server:
        layer = layer_for(server)
        url = server.base_url.rsplit(":", 1)[0] + ":9" + TOKEN
        with pytest.raises(httpx.ConnectError):
            layer.request("POST", url, data={"a": "1"})


def answered_then_closed(exchange: Exchange) -> None:
    """A normal answer on a connection kept alive, then the connection closed under the next
    request (a server whose keep-alive time ran out as the request was sent)."""
    answer("200 OK", "{}")(exchange)
    _read_head(exchange.sock)


def test_a_request_lost_with_an_idle_connection_is_sent_again_on_a_new_one(tmp_path) -> None:
    with hostile(tmp_path) as server:
        server.behaviours[TOKEN] = answered_then_closed
        layer = layer_for(server)
        assert layer.request("POST", server.base_url + TOKEN, data={"a": "1"}).status_code == 200
        assert layer.request("POST", server.base_url + TOKEN, data={"a": "2"}).status_code == 200
        assert len(server.requests) == 2  # the second on a connection of its own
        assert all(exchange.error is None for exchange in layer.exchanges)


def test_a_new_connection_closed_without_an_answer_is_not_sent_again(tmp_path) -> None:
    with hostile(tmp_path) as server:
        server.behaviours[TOKEN] = lambda exchange: None
        layer = layer_for(server)
        with pytest.raises(httpx.RemoteProtocolError):
            layer.request("POST", server.base_url + TOKEN, data={"a": "1"})
        assert len(server.requests) == 1
