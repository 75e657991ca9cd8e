"""The connection guard on a real uvicorn server (in a thread, a tiny ASGI application): idle
connections make room, a slow or silent head is cut off, a busy server says so."""

import asyncio
import contextlib
import re
import resource
import socket
import threading
import time

import pytest
import uvicorn
from uvicorn.protocols.http.auto import AutoHTTPProtocol
from uvicorn.protocols.http.h11_impl import H11Protocol

from keras_nmt.workshop.serve.connections import ConnectionGuard, guarded_protocol, most_connections
from keras_nmt.workshop.serve.metrics import Counters, exposition


async def _app(scope, receive, send):
    """Answers `/slow` after 1 s, anything else at once."""
    if scope["type"] != "http":
        return
    if scope["path"] == "/slow":
        await asyncio.sleep(1.0)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"ok"})


@contextlib.contextmanager
def _server(max_connections, header_timeout, base=AutoHTTPProtocol):
    """A guarded uvicorn server (`base`: its HTTP protocol) on a free localhost port:
    `(port, guard)`."""
    guard = ConnectionGuard(max_connections, header_timeout)
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(128)
    config = uvicorn.Config(_app, http=guarded_protocol(guard, base), log_level="warning",
                            lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield listening.getsockname()[1], guard
    finally:
        server.should_exit = True
        thread.join(10)
        listening.close()


def _connect(port):
    connection = socket.create_connection(("127.0.0.1", port), timeout=5)
    return connection


def _get(connection, path="/"):
    connection.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return connection.recv(4096)


def _closed(connection, within):
    """Whether the server closes `connection` within `within` seconds."""
    connection.settimeout(within)
    try:
        return connection.recv(4096) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_idle_connections_at_the_limit_make_room_for_a_request_oldest_first():
    with _server(max_connections=6, header_timeout=30) as (port, guard):
        idle = [_connect(port) for _ in range(6)]
        time.sleep(0.2)
        fresh = _connect(port)
        assert _get(fresh).startswith(b"HTTP/1.1 200")
        assert _closed(idle[0], 2)  # the oldest idle one was closed
        assert not _closed(idle[-1], 0.2)
        assert guard.closed_idle >= 1
        counters = Counters()
        counters.connections = guard
        assert re.search(r"^keras_nmt_connections_closed_idle_total [1-9]",
                         exposition(counters).decode(), re.MULTILINE)
        for connection in (*idle, fresh):
            connection.close()


@pytest.mark.parametrize("base", [AutoHTTPProtocol, H11Protocol])
def test_a_head_never_sent_or_sent_a_byte_at_a_time_is_cut_off(base):
    with _server(max_connections=50, header_timeout=0.6, base=base) as (port, guard):
        silent, slow = _connect(port), _connect(port)
        start = time.monotonic()
        for byte in b"GET / HTTP/1.1\r\nHost: x\r\n":  # never finished
            try:
                slow.sendall(bytes([byte]))
            except OSError:
                break
            time.sleep(0.1)
        assert _closed(silent, 1) and _closed(slow, 1)
        assert time.monotonic() - start < 4
        assert guard.timed_out == 2
        # A connection that sends its head in time is answered, and waits again after it.
        kept = _connect(port)
        assert _get(kept).startswith(b"HTTP/1.1 200")
        assert _closed(kept, 2)


def test_when_every_connection_is_answering_a_new_one_is_told_503():
    with _server(max_connections=2, header_timeout=30) as (port, guard):
        busy = [_connect(port) for _ in range(2)]
        for connection in busy:
            connection.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.3)
        refused = _connect(port)
        answer = refused.recv(4096)
        assert answer.startswith(b"HTTP/1.1 503") and b"retry-after: 1" in answer
        assert all(c.recv(4096).startswith(b"HTTP/1.1 200") for c in busy)
        assert guard.refused == 1


def test_the_default_limit_leaves_descriptors_free():
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert 0 < most_connections() < soft - 64


def test_more_connections_than_the_descriptor_limit_leaves_are_refused_naming_the_flag():
    from keras_nmt.workshop.cli.serve import connection_limit  # noqa: PLC0415

    with pytest.raises(ValueError, match=r"^--max-connections 1000000000: the descriptor limit "
                                         r"\(ulimit -n \d+\) leaves \d+ connections"):
        connection_limit(10**9)
    assert connection_limit(5) == 5
    assert 0 < connection_limit(None) < resource.getrlimit(resource.RLIMIT_NOFILE)[0]
