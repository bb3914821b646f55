"""The WebSocket endpoint (for browsers and JSON clients): one request per message, the same
requests as the line protocol, replies as JSON objects (``world: json off`` gives text)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import sys

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from twig.server.server import Connection, Server

MAX_MESSAGE = 1 << 20
"""Largest WebSocket message read, bytes: longer than the line limit gets an error reply,
longer than this closes the connection (code 1009, the protocol's "message too big")."""
LOCAL_ORIGIN = re.compile(r"https?://(localhost|127\.0\.0\.1|\[::1\])(:\d+)?")
"""A web page served by this machine (the viewer, a local development server)."""


class _OneLine(logging.Handler):
    """The WebSocket library's log (a refused handshake: a web page from elsewhere, a port
    scan) as one line on stderr, without its traceback."""

    def emit(self, record: logging.LogRecord) -> None:
        why = f": {record.exc_info[1]}" if record.exc_info and record.exc_info[1] else ""
        print(f"twig serve: WebSocket {record.getMessage()}{why}", file=sys.stderr)


LOG = logging.getLogger("twig.server.websocket")
LOG.setLevel(logging.WARNING)
LOG.propagate = False
LOG.addHandler(_OneLine())


def allowed_origins(server: Server) -> list[str | re.Pattern[str] | None] | None:
    """The ``Origin`` headers a WebSocket handshake may carry (None: any, with a token): no
    header (a program, not a browser), this machine's pages and the ones allowed by flag. A
    web page from elsewhere cannot drive the world of a browser's user."""
    if server.token:
        return None
    return [None, LOCAL_ORIGIN, *server.origins]


class WebSocketConnection(Connection):
    """A WebSocket client; replies queue here and a task sends them."""

    def __init__(self, server: Server, number: int, ws: ServerConnection) -> None:
        super().__init__(server, number)
        self.ws = ws
        self.session.json = True
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._queued = 0
        self._sender = asyncio.get_running_loop().create_task(self._send_all())

    async def _send_all(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            while (text := await self._queue.get()) is not None:
                self._queued -= len(text)
                await self.ws.send(text)
            await self.ws.close()  # a refused client: its error went first

    def _write(self, lines: tuple[str, ...]) -> None:
        for text in lines:
            self._queue.put_nowait(text)
            self._queued += len(text)

    def buffered(self) -> int:
        return self._queued + self.ws.transport.get_write_buffer_size()

    def _close(self, flush: bool) -> None:
        if flush:
            self._queue.put_nowait(None)
        else:
            self._sender.cancel()
            self.ws.transport.abort()


class WebSocketListener:
    """The listening socket; ``port`` is the bound port."""

    def __init__(self, ws_server: object, port: int) -> None:
        self._server = ws_server
        self.port = port

    def stop(self) -> None:
        self._server.close()

    async def wait_closed(self) -> None:
        await self._server.wait_closed()


async def listen_websocket(server: Server, host: str, port: int) -> WebSocketListener:
    """Accept WebSocket clients of ``server`` on ``host:port``."""
    limit = server.limits.max_line

    async def handle(ws: ServerConnection) -> None:
        conn = server.connect(lambda s, n: WebSocketConnection(s, n, ws))
        if conn is None:
            await ws.close(1013, "too many clients")
            return
        try:
            async for message in ws:
                data = message.encode("utf-8") if isinstance(message, str) else message
                if len(data) > limit:
                    conn.too_long(data[:32])
                else:
                    conn.receive(data.rstrip(b"\r\n"))
        except ConnectionClosed:
            pass
        finally:
            conn.close()

    ws_server = await serve(handle, host, port, max_size=max(limit * 4, MAX_MESSAGE),
                            ping_interval=None, origins=allowed_origins(server), logger=LOG)
    return WebSocketListener(ws_server, ws_server.sockets[0].getsockname()[1])
