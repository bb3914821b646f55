"""The remote-control server: many clients driving one world running in real time.

Horswill 2009, XI.D: "the script interpreter can be run over a TCP socket, providing a remote
procedure-call interface ... The user can also TELNET to the socket". Each client has a
:class:`~twig.script.session.Session`. Requests are parsed on the network thread and handed
to the world's thread in batches (:meth:`RealTime.submit`), where they run between ticks in
arrival order (and are logged for replay); replies and events come back through one outbox,
so the simulation never waits for a network write. A client that reads too slowly is dropped.

No client can hurt another: each client's requests wait in its own queue and the clients take
turns, a bad line (encoding, size, protocol) is answered to its sender alone, an exception in
a command is that command's error reply, and a tick that raises pauses the world and tells
every client why (:meth:`RealTime._fail`), instead of silencing the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import re
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from twig.errors import TwigError, describe
from twig.physics import PhysicsWorld
from twig.realtime import RealTime
from twig.script.session import Reply, Session
from twig.script.syntax import Call
from twig.server.protocol import Request, format_reply, parse_request, request_id
from twig.server.record import Recorder

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
HTTP_REQUEST = re.compile(rb"[A-Z]{3,10} (?:[/*]|https?://|\S+ HTTP/\d)")
"""The start of an HTTP request line (a browser's form post to the TCP port), however long:
refused, connection closed. No twig line starts so (a target is followed by ``:``)."""
BUDGET, WINDOW = 0.004, 1 / 60
"""Seconds of client requests the world's thread runs per ``WINDOW`` seconds of wall-clock
time (a tick at speed 1) while the clock runs."""


@dataclass(frozen=True)
class Limits:
    """Per-client limits.

    Attributes
    ----------
    max_line
        Longest request line, bytes.
    max_pending
        Most requests of one client waiting for their final reply (``done``, ``value`` or
        ``error``); more are refused with an error.
    max_buffer
        Most reply bytes a client may leave unread before it is dropped.
    max_clients
        Most simultaneous clients.
    """

    max_line: int = 8192
    max_pending: int = 256
    max_buffer: int = 1 << 20
    max_clients: int = 256


class Connection:
    """One client, whatever carries its lines (TCP or WebSocket).

    Subclasses implement :meth:`_write` (queue bytes without waiting), :meth:`buffered`
    (bytes queued and not yet sent) and :meth:`_close`.
    """

    def __init__(self, server: Server, number: int) -> None:
        self.server = server
        self.number = number
        self.session = Session(server.world, self._reply, server.clock)
        self.pending = 0
        self.authorised = server.token is None
        self.closed = False

    def _reply(self, reply: Reply) -> None:
        """Called on the world's thread: format now (the session's mode) and post."""
        self.server.post(self, format_reply(reply, self.session.json),
                         reply.kind in ("done", "error", "value"))

    def receive(self, line: bytes) -> None:
        """Handle one request line (network thread)."""
        if self.closed:
            return
        if HTTP_REQUEST.match(line):
            self._refuse_http()
            return
        if not self.authorised:
            self._authorise(line)
            return
        request = parse_request(line)
        if request is not None:
            self.submit(request)

    def submit(self, request: Request) -> None:
        if self.pending >= self.server.limits.max_pending:
            self.write(format_reply(Reply("error", request.id, "too many pending commands "
                                          f"(max {self.server.limits.max_pending})"),
                                    self.session.json))
            return
        self.pending += 1
        self.server.enqueue(self, request)

    def _refuse_http(self) -> None:
        self.write("error this is twig's line protocol, not HTTP (docs/protocol.md); "
                   "closing the connection")
        self.close(flush=True)

    def too_long(self, head: bytes) -> None:
        """The line starting with ``head`` exceeded the limit and was dropped."""
        if HTTP_REQUEST.match(head):
            self._refuse_http()
            return
        self.submit(Request(request_id(head), None,
                            f"line too long (max {self.server.limits.max_line} bytes)"))

    def _authorise(self, line: bytes) -> None:
        token = self.server.token or ""
        if hmac.compare_digest(line.strip(), f"token {token}".encode()):
            self.authorised = True
            self.write("ok")
        else:
            self.write("error expected 'token <T>' first (this server needs a token)")
            self.close(flush=True)

    def write(self, *lines: str) -> None:
        """Send lines (network thread); drop the client if it stopped reading."""
        if self.closed:
            return
        self._write(tuple(map(_encodable, lines)))
        if self.buffered() > self.server.limits.max_buffer:
            print(f"twig serve: client {self.number} dropped: it stopped reading its replies",
                  file=sys.stderr)
            self.close()

    def close(self, flush: bool = False) -> None:
        """Disconnect (``flush``: after sending what is queued)."""
        if not self.closed:
            self.closed = True
            self.server.disconnect(self)
            self._close(flush)

    def _write(self, lines: tuple[str, ...]) -> None:
        raise NotImplementedError

    def buffered(self) -> int:
        raise NotImplementedError

    def _close(self, flush: bool) -> None:
        raise NotImplementedError


def _encodable(text: str) -> str:
    """``text`` as it can go out as UTF-8 (a lone surrogate written as ``\\udXXX``)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


class Server:
    """Serves ``world`` (stepped in real time by ``clock``) to TCP and WebSocket clients.

    Parameters
    ----------
    world
        The world; ``clock`` owns it from :meth:`start` on.
    clock
        The real-time loop stepping it.
    token
        If set, clients must send ``token <T>`` first (required off localhost).
    recorder
        Logs every command for ``twig replay``.
    limits
        Per-client limits.
    origins
        Web page origins (``https://example.org``) whose WebSocket connections are accepted
        besides this machine's own (``http://localhost:8080``); with a token, any origin.
    """

    def __init__(self, world: PhysicsWorld, clock: RealTime, *, token: str | None = None,
                 recorder: Recorder | None = None, limits: Limits | None = None,
                 origins: tuple[str, ...] = ()) -> None:
        self.world = world
        self.clock = clock
        self.token = token
        self.recorder = recorder
        self.limits = limits or Limits()
        self.origins = origins
        self.connections: set[Connection] = set()
        self._numbers = itertools.count(1)
        self._inbox: list[tuple[Connection, Request]] = []
        self._outbox: list[tuple[Connection, str, bool]] = []
        self._lock = threading.Lock()
        self._delivering = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listeners: list[Any] = []
        self.commands_run = 0
        self._handler_session: Session | None = None
        self._backlog: dict[Connection, deque[Request]] = {}
        self._window = -WINDOW
        self._budget_left = BUDGET
        self._continued = False
        clock.on_turn.append(self._on_turn)
        clock.on_failure.append(self._failure)

    # ------------------------------------------------------------------ lifecycle
    async def start(self, host: str = "127.0.0.1", port: int = 7777,
                    ws_port: int | None = None) -> None:
        """Listen for TCP clients on ``port`` (and WebSocket clients on ``ws_port``) and start
        the clock. Port 0 picks a free port (see :attr:`ports`)."""
        if host not in LOCAL_HOSTS and not self.token:
            raise TwigError(f"serving on {host} (not this machine only) needs a token "
                            "(--token T); clients then send 'token T' first")
        self._loop = asyncio.get_running_loop()
        from twig.server.tcp import listen_tcp

        self._listeners.append(await listen_tcp(self, host, port))
        if ws_port is not None:
            from twig.server.websocket import listen_websocket

            self._listeners.append(await listen_websocket(self, host, ws_port))
        self.clock.start()

    @property
    def ports(self) -> list[int]:
        """The ports listened on: TCP first, then WebSocket."""
        return [listener.port for listener in self._listeners]

    async def close(self) -> None:
        """Stop listening, drop every client, stop the clock and end the record."""
        for listener in self._listeners:
            listener.stop()
        for conn in list(self.connections):
            conn.close()
        for listener in self._listeners:
            await listener.wait_closed()
        self.clock.stop()
        if self.recorder is not None:
            self.recorder.close(self.world)

    def connect(self, make: Callable[[Server, int], Connection]) -> Connection | None:
        """Register a new client (None if there are too many)."""
        if len(self.connections) >= self.limits.max_clients:
            return None
        conn = make(self, next(self._numbers))
        conn.session.on_internal_error = self._failure
        self.connections.add(conn)
        return conn

    def disconnect(self, conn: Connection) -> None:
        self.connections.discard(conn)
        self.clock.submit(lambda: self._forget(conn))

    def _forget(self, conn: Connection) -> None:
        """World's thread: a client left; its queued requests will not run."""
        self._backlog.pop(conn, None)
        conn.session.close()

    # ------------------------------------------------------------------ requests
    def enqueue(self, conn: Connection, request: Request) -> None:
        """Queue a request; all requests received in one loop pass go over in one batch."""
        if not self._inbox:
            asyncio.get_running_loop().call_soon(self._flush_inbox)
        self._inbox.append((conn, request))

    def _flush_inbox(self) -> None:
        batch, self._inbox = self._inbox, []
        future = self.clock.submit(lambda: self._run_batch(batch))
        future.add_done_callback(lambda f: self._batch_failed(batch, f.exception()))

    def _batch_failed(self, batch: list[tuple[Connection, Request]],
                      error: BaseException | None) -> None:
        """The world stopped (or a bug): every request of the batch still gets its reply."""
        if error is None:
            return
        for conn, request in batch:
            self.post(conn, format_reply(Reply("error", request.id, f"not run: {error}"),
                                         conn.session.json), True)

    def _run_batch(self, batch: list[tuple[Connection, Request]]) -> None:
        """On the world's thread, between ticks: queue each request behind its client's
        earlier ones."""
        for conn, request in batch:
            self._backlog.setdefault(conn, deque()).append(request)
        self._run_backlog()

    def _on_turn(self) -> None:
        if self._backlog:
            self._run_backlog()

    def _run_backlog(self) -> None:
        """Run queued requests, the clients taking turns (one request each per round, so no
        client's burst delays another's request by more than a round), at most ``BUDGET``
        seconds of them per ``WINDOW`` of wall-clock time while the clock runs (the rest wait
        for the loop's next turn, at most :data:`~twig.realtime.TURN` later), so the tick
        rate holds under load, at any speed. While no tick comes (paused, or waiting for a
        background result) each call runs one budget and queues the rest behind the work
        that arrived meanwhile, so a newer request of another client has its turn at once."""
        now = time.perf_counter()
        idle = self.clock.paused or self.clock.held
        if idle or now - self._window >= WINDOW:
            self._window, self._budget_left = now, BUDGET
        backlog = self._backlog
        while backlog and self._budget_left > 0:
            for conn in list(backlog):
                if self._budget_left <= 0:
                    break
                queue = backlog.pop(conn)  # re-inserted last: the next client goes first
                start = time.perf_counter()
                self._run_one(conn, queue.popleft())
                if queue:
                    backlog[conn] = queue
                self._budget_left -= time.perf_counter() - start
        if backlog and idle and not self._continued:
            self._continued = True
            self.clock.submit(self._continue_backlog)
        if self.recorder is not None:
            with contextlib.suppress(OSError):  # the next write fails too, and says so
                self.recorder.flush()

    def _continue_backlog(self) -> None:
        self._continued = False
        self._run_backlog()

    def _run_one(self, conn: Connection, request: Request) -> None:
        """Run one request and send its replies; whatever goes wrong is its error reply."""
        try:
            if request.call is None:
                conn._reply(Reply("error", request.id, request.error))
                return
            self._record(conn.number, request.call)
            self.commands_run += 1
            conn.session.run(request.call, request.id)
        except Exception as e:  # a bug outside the command (a reply): logged
            traceback.print_exc(file=sys.stderr)
            conn._reply(Reply("error", request.id, describe(e)))

    def _record(self, client: int, call: Call) -> None:
        """Log a command; if the record cannot be written (a full disk), recording stops
        and every client is told, and serving goes on."""
        if self.recorder is None:
            return
        try:
            self.recorder.command(self.world.tick, client, call)
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            self.recorder = None
            message = f"the session record failed ({describe(e)}); recording stopped"
            print(f"twig serve: {message}", file=sys.stderr)
            self._failure(message)

    def _failure(self, message: str) -> None:
        """A command failed with a bug (its caller has the error reply), or a tick raised and
        the world paused (world's thread): tell every client."""
        self.broadcast({"t": round(self.world.time, 6), "type": "failure", "tick":
                        self.world.tick, "message": message})

    def broadcast(self, event: dict[str, Any]) -> None:
        """Send ``event`` to every client, subscribed or not (any thread)."""
        for conn in list(self.connections):
            self.post(conn, format_reply(Reply("event", None, event), conn.session.json), False)

    # ------------------------------------------------------------------ replies
    def post(self, conn: Connection, text: str, final: bool) -> None:
        """Queue a reply line for ``conn`` (any thread); lines keep their order."""
        with self._lock:
            self._outbox.append((conn, text, final))
            if self._delivering or self._loop is None:
                return
            self._delivering = True
        self._loop.call_soon_threadsafe(self._deliver)

    def _deliver(self) -> None:
        with self._lock:
            items, self._outbox = self._outbox, []
            self._delivering = False
        lines: dict[Connection, list[str]] = {}
        for conn, text, final in items:
            if final:
                conn.pending -= 1
            lines.setdefault(conn, []).append(text)
        for conn, texts in lines.items():
            try:
                conn.write(*texts)
            except Exception:  # this client's transport failed: drop it, deliver the rest
                traceback.print_exc(file=sys.stderr)
                conn.close()

    # ------------------------------------------------------------------ embedded use
    def command_handler(self, line: str, timeout: float = 5.0) -> str:
        """Run one script line for an embedded user interface (the viewer's command box) and
        return its first reply line (``ok``, ``done``, ``value <json>`` or ``error ...``).

        Thread-safe; call it from any thread but the world's and the server's event loop.
        The line is logged like any client's.
        """
        request = parse_request(line.encode("utf-8", "replace"))
        if request is None:
            return ""
        replies: list[str] = []

        def run() -> str:
            if self._handler_session is None:
                self._handler_session = Session(self.world, clock=self.clock)
            session = self._handler_session
            session.send = lambda reply: replies.append(format_reply(reply, session.json))
            if request.call is None:
                return format_reply(Reply("error", request.id, request.error), False)
            if self.recorder is not None:
                self.recorder.command(self.world.tick, 0, request.call)
            session.run(request.call, request.id)
            return replies[0]

        return self.clock.submit(run).result(timeout)
