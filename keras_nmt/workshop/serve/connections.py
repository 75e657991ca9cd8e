"""Connections that cannot starve the server: a limit below the file-descriptor limit, the
connection idle the longest closed first, and a time limit on a request's head.

Every open connection holds a file descriptor, and the process may hold `ulimit -n` of them;
past it, whatever opens a file fails (`Too many open files`: 1,100 idle connections under the
common limit of 1,024 made every translation a 500). uvicorn closes an idle keep-alive
connection after `timeout_keep_alive` (5 s), but only once the connection has been answered: a
connection that never sends a byte, or sends its request head a byte at a time, stays open for
ever. So each connection served here (`guarded_protocol`) also:

* must send a whole request head within `header_timeout` seconds of opening, and of its last
  answer (else it is closed; a body has its own limit, `JsonRoutes`' `body_timeout`: 408);
* counts toward `max_connections`: a connection opened beyond it closes the connection that has
  been idle the longest (no request being answered: waiting for its first request, its next
  one, or the rest of a head), so idle connections never keep a client from being answered;
  only when every connection is answering a request is the new one refused (503 with
  `Retry-After`, then closed).

Why not uvicorn's `limit_concurrency`: it answers 503 to every new request once the open
connections (idle ones included) reach it, so 1,000 idle connections would refuse every
translation rather than let one in; and it does not stop connections from being accepted. Why
not h11's `h11_max_incomplete_event_size`: the serve extra installs httptools, which uvicorn
prefers, and that limit bounds a head's size, not its time.

Example:
    >>> guard = ConnectionGuard(max_connections=900, header_timeout=10)
    >>> config = uvicorn.Config(app, http=guarded_protocol(guard))           # doctest: +SKIP
"""

import collections
import os
import resource

from uvicorn.protocols.http.auto import AutoHTTPProtocol

# Descriptors kept free beyond those open at start: the files a request opens (the page's
# files), the event loop's and the threads' own, a log file rotated.
RESERVED_DESCRIPTORS = 64

_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
         b"retry-after: 1\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%s")
_BUSY_BODY = b'{"error":"Slowdown: every connection the server takes is busy; try again"}'


def open_descriptors():
    """The number of file descriptors this process holds now."""
    try:
        return len(os.listdir("/proc/self/fd")) - 1  # less the one listing the folder
    except OSError:  # not Linux: count them one by one
        return sum(1 for fd in range(resource.getrlimit(resource.RLIMIT_NOFILE)[0])
                   if _is_open(fd))


def _is_open(fd):
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def most_connections():
    """The most connections the process can take and still open files: the soft descriptor
    limit (`ulimit -n`) less the descriptors open now and `RESERVED_DESCRIPTORS`."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 1 << 20
    return soft - open_descriptors() - RESERVED_DESCRIPTORS


class ConnectionGuard:
    """The connections of one server: their count, and the idle ones, longest idle first.

    Args:
        max_connections: connections open at most.
        header_timeout: seconds a connection has to send a whole request head, from its
            opening and from each answer.
    """

    def __init__(self, max_connections, header_timeout):
        self.max_connections, self.header_timeout = max_connections, header_timeout
        self.open = set()
        self.idle = collections.OrderedDict()  # connection -> its timer, longest idle first
        self.closed_idle = self.refused = self.timed_out = 0

    def opened(self, connection):
        self.open.add(connection)
        self.wait_for_head(connection)
        if len(self.open) <= self.max_connections:
            return
        victim = next((c for c in self.idle if c is not connection), None)
        if victim is not None:  # the connection idle the longest makes room
            self.closed_idle += 1
            self._close(victim)
        else:  # every other connection is being answered
            self.refused += 1
            connection.transport.write(_BUSY % (len(_BUSY_BODY), _BUSY_BODY))
            self._close(connection)

    def wait_for_head(self, connection):
        """`connection` is idle: it waits for a request head, `header_timeout` at most."""
        self.busy(connection)
        self.idle[connection] = connection.loop.call_later(
            self.header_timeout, self._timed_out, connection)

    def busy(self, connection):
        """`connection` has sent a request head: it is being answered."""
        timer = self.idle.pop(connection, None)
        if timer is not None:
            timer.cancel()

    def closed(self, connection):
        self.busy(connection)
        self.open.discard(connection)

    def _timed_out(self, connection):
        self.timed_out += 1
        self._close(connection)

    def _close(self, connection):
        self.closed(connection)  # counted out at once: its close completes later
        connection.transport.close()


def guarded_protocol(guard, base=AutoHTTPProtocol):
    """uvicorn's HTTP protocol class (`base`: httptools when installed, else h11) with its
    connections kept by `guard` (see the module): pass it as `uvicorn.Config(http=...)`."""

    class GuardedProtocol(base):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            app = self.app

            async def marked(scope, receive, send):  # a request head has come in whole
                guard.busy(self)
                return await app(scope, receive, send)

            self.app = marked

        def connection_made(self, transport):
            super().connection_made(transport)
            guard.opened(self)

        def connection_lost(self, exc):
            guard.closed(self)
            super().connection_lost(exc)

        def on_response_complete(self):
            super().on_response_complete()
            if not self.transport.is_closing() and self in guard.open:
                guard.wait_for_head(self)

    GuardedProtocol.__name__ = f"Guarded{base.__name__}"
    return GuardedProtocol
