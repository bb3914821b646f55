"""The WebSocket endpoint (for browsers and JSON clients): one request per message, the same
requests as the line protocol, replies as JSON objects (``world: json off`` gives text)."""

from __future__ import annotations

import asyncio
import contextlib

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from twig.server.server import Connection, Server


class WebSocketConnection(Connection):
    """A WebSocket client; replies queue here and a task sends them."""

    def __init__(self, server: Server, number: int, ws: ServerConnection) -> None:
        super().__init__(server, number)
        self.ws = ws
        self.session.json = True
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._queued = 0
        self._sender = asyncio.get_running_loop().create_task(self._send_all())

    async def _send_all(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                text = await self._queue.get()
                self._queued -= len(text)
                await self.ws.send(text)

    def _write(self, lines: tuple[str, ...]) -> None:
        for text in lines:
            self._queue.put_nowait(text)
            self._queued += len(text)

    def buffered(self) -> int:
        return self._queued + self.ws.transport.get_write_buffer_size()

    def _close(self) -> None:
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

    ws_server = await serve(handle, host, port, max_size=max(limit * 4, 1 << 16),
                            ping_interval=None)
    return WebSocketListener(ws_server, ws_server.sockets[0].getsockname()[1])
