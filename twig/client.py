"""A small Python client for ``twig serve`` (sync :class:`Client`, async :class:`AsyncClient`).

::

    from twig.client import Client

    with Client(port=7777) as world:
        world.command("kid: move-node l_hand (0.3, 1.2, 0.4) seconds=0.5")  # waits for done
        print(world.command("kid: where"))                                   # a query's value
        world.command("world: subscribe pain")
        print(world.event(timeout=5))                                        # next event

Both speak the JSON form of the line protocol (docs/protocol.md) with their own request ids.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import time
from collections import deque
from typing import Any

from twig.errors import ScriptError, TwigError


class _TimeoutError(TwigError):
    """No reply in time."""


class _Inbox:
    """Replies by request id and events, as they arrive."""

    def __init__(self) -> None:
        self.replies: dict[int, deque[dict[str, Any]]] = {}
        self.events: deque[dict[str, Any]] = deque()
        self.ids = itertools.count(1)

    def feed(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            raise TwigError(f"the server sent a line that is not JSON: {line[:80]!r}") from None
        if message.get("reply") == "event":
            self.events.append(message["event"])
        elif isinstance(message.get("id"), int):
            self.replies.setdefault(message["id"], deque()).append(message)
        elif message.get("reply") == "error":
            raise ScriptError(message.get("message", "error"))

    def take(self, rid: int) -> dict[str, Any] | None:
        queue = self.replies.get(rid)
        if not queue:
            return None
        reply = queue.popleft()
        if reply["reply"] != "ok":
            del self.replies[rid]
        return reply

    @staticmethod
    def outcome(reply: dict[str, Any]) -> Any:
        """A final reply's result: the value, None for done; raises for an error."""
        if reply["reply"] == "error":
            raise ScriptError(reply["message"])
        return reply.get("value")


class Client:
    """A blocking client. ``token``: sent first if the server needs one."""

    def __init__(self, host: str = "127.0.0.1", port: int = 7777, token: str | None = None,
                 timeout: float = 30.0) -> None:
        self.timeout = timeout
        self._sock = socket.create_connection((host, port), timeout=timeout)
        self._buffer = bytearray()
        self._inbox = _Inbox()
        if token is not None:
            self._send(f"token {token}")
            if self._line(time.monotonic() + timeout).strip() != b"ok":
                raise TwigError("the server refused the token")
        self.command("world: json on")

    def _send(self, line: str) -> None:
        self._sock.sendall(line.encode("utf-8") + b"\n")

    def _line(self, deadline: float) -> bytes:
        while (end := self._buffer.find(b"\n")) < 0:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _TimeoutError("timed out waiting for the server")
            self._sock.settimeout(left)
            try:
                data = self._sock.recv(1 << 16)
            except TimeoutError:
                raise _TimeoutError("timed out waiting for the server") from None
            if not data:
                raise TwigError("the server closed the connection")
            self._buffer += data
        line = bytes(self._buffer[:end])
        del self._buffer[:end + 1]
        return line

    def _read(self, deadline: float) -> None:
        self._inbox.feed(self._line(deadline))

    def send(self, line: str) -> int:
        """Send one script line without waiting; returns its request id."""
        rid = next(self._inbox.ids)
        self._send(f"#{rid} {line}")
        return rid

    def reply(self, rid: int, timeout: float | None = None) -> dict[str, Any]:
        """The next reply to request ``rid`` (a JSON-mode reply object)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while (reply := self._inbox.take(rid)) is None:
            self._read(deadline)
        return reply

    def command(self, line: str, wait: bool = True, timeout: float | None = None) -> Any:
        """Run one line: returns a query's value (None otherwise), waiting for a durative
        command's end unless ``wait`` is False; raises ScriptError if it fails."""
        rid = self.send(line)
        reply = self.reply(rid, timeout)
        if reply["reply"] == "ok" and wait:
            reply = self.reply(rid, timeout)
        return None if reply["reply"] == "ok" else self._inbox.outcome(reply)

    def event(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next subscribed event, or None after ``timeout`` seconds without one."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while not self._inbox.events:
            try:
                self._read(deadline)
            except _TimeoutError:
                return None
        return self._inbox.events.popleft()

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient:
    """The asyncio twin of :class:`Client`: ``client = await AsyncClient.connect(port=...)``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 timeout: float) -> None:
        self._reader = reader
        self._writer = writer
        self._inbox = _Inbox()
        self.timeout = timeout

    @classmethod
    async def connect(cls, host: str = "127.0.0.1", port: int = 7777,
                      token: str | None = None, timeout: float = 30.0) -> AsyncClient:
        reader, writer = await asyncio.open_connection(host, port, limit=1 << 24)
        client = cls(reader, writer, timeout)
        if token is not None:
            writer.write(f"token {token}\n".encode())
            if (await reader.readline()).strip() != b"ok":
                raise TwigError("the server refused the token")
        await client.command("world: json on")
        return client

    async def _read(self) -> None:
        line = await self._reader.readline()
        if not line:
            raise TwigError("the server closed the connection")
        self._inbox.feed(line)

    def send(self, line: str) -> int:
        """Send one script line without waiting; returns its request id."""
        rid = next(self._inbox.ids)
        self._writer.write(f"#{rid} {line}\n".encode())
        return rid

    async def reply(self, rid: int, timeout: float | None = None) -> dict[str, Any]:
        """The next reply to request ``rid``."""
        async with asyncio.timeout(self.timeout if timeout is None else timeout):
            while (reply := self._inbox.take(rid)) is None:
                await self._read()
        return reply

    async def command(self, line: str, wait: bool = True, timeout: float | None = None
                      ) -> Any:
        """As :meth:`Client.command`."""
        rid = self.send(line)
        reply = await self.reply(rid, timeout)
        if reply["reply"] == "ok" and wait:
            reply = await self.reply(rid, timeout)
        return None if reply["reply"] == "ok" else self._inbox.outcome(reply)

    async def event(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next subscribed event, or None after ``timeout`` seconds."""
        try:
            async with asyncio.timeout(self.timeout if timeout is None else timeout):
                while not self._inbox.events:
                    await self._read()
        except TimeoutError:
            return None
        return self._inbox.events.popleft()

    async def close(self) -> None:
        self._writer.close()
        await self._writer.wait_closed()
