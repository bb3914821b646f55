"""The TCP endpoint: UTF-8 lines in, reply lines out (telnet-friendly)."""

from __future__ import annotations

import asyncio

from twig.server.server import Connection, Server


class TcpConnection(Connection, asyncio.Protocol):
    """A TCP client: splits its bytes into lines; writes never wait."""

    def __init__(self, server: Server, number: int) -> None:
        super().__init__(server, number)
        self.transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._discarding = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        limit = self.server.limits.max_line
        self._buffer += data
        while not self.closed:
            end = self._buffer.find(b"\n")
            if end < 0:
                break
            line = bytes(self._buffer[:end]).rstrip(b"\r\0")
            del self._buffer[:end + 1]
            if self._discarding:
                self._discarding = False  # the rest of a line already refused
            elif len(line) > limit:
                self.too_long(line[:32])
            else:
                self.receive(line)
        if len(self._buffer) > limit:
            if not self._discarding:
                self.too_long(bytes(self._buffer[:32]))
                self._discarding = True
            self._buffer.clear()

    def connection_lost(self, exc: Exception | None) -> None:
        self.close()

    def _write(self, lines: tuple[str, ...]) -> None:
        assert self.transport is not None
        self.transport.write(("\n".join(lines) + "\n").encode("utf-8"))

    def buffered(self) -> int:
        return self.transport.get_write_buffer_size() if self.transport else 0

    def _close(self, flush: bool) -> None:
        if self.transport is not None:
            if flush:
                self.transport.close()
            else:
                self.transport.abort()


class TcpListener:
    """The listening socket; ``port`` is the bound port."""

    def __init__(self, server: asyncio.base_events.Server) -> None:
        self._server = server
        self.port: int = server.sockets[0].getsockname()[1]

    def stop(self) -> None:
        """Stop accepting clients."""
        self._server.close()

    async def wait_closed(self) -> None:
        await self._server.wait_closed()


async def listen_tcp(server: Server, host: str, port: int) -> TcpListener:
    """Accept TCP clients of ``server`` on ``host:port``."""
    loop = asyncio.get_running_loop()

    def make() -> asyncio.Protocol:
        conn = server.connect(TcpConnection)
        return conn if conn is not None else _Refuse()

    return TcpListener(await loop.create_server(make, host, port))


class _Refuse(asyncio.Protocol):
    """Tells a client over the limit why, and hangs up."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(b"error too many clients\n")
        transport.close()
