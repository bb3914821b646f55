"""Running a server: in the foreground (``twig serve``) or on a background thread (tests,
notebooks, a program that embeds twig)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from pathlib import Path
from types import TracebackType

from twig.physics import PhysicsWorld
from twig.realtime import RealTime
from twig.script.runner import open_world
from twig.server.record import Recorder
from twig.server.server import Limits, Server


def make_clock(world: PhysicsWorld, *, speed: float = 1.0, paused: bool = False) -> RealTime:
    """The real-time loop that will own ``world`` (not started yet), with the physics kernels
    loaded now rather than on the world's first tick; a scene's own script
    (``world.script``) is driven by the same clock."""
    PhysicsWorld().step()
    clock = RealTime(world, speed=speed, paused=paused)
    script = getattr(world, "script", None)
    if script is not None:
        script.session.clock = clock
    return clock


def make_server(world: PhysicsWorld, *, speed: float = 1.0, paused: bool = False,
                token: str | None = None, record: str | Path | None = None,
                scene: str | None = None, limits: Limits | None = None,
                origins: tuple[str, ...] = ()) -> Server:
    """A server for ``world`` with its real-time loop (not started yet).

    ``record`` logs every command for ``twig replay`` (``scene`` names what to rebuild). A
    scene's own script (``world.script``) is driven by the same clock. ``origins``: web pages
    from elsewhere than this machine allowed to connect over WebSocket (``--allow-origin``).
    """
    clock = make_clock(world, speed=speed, paused=paused)
    recorder = Recorder(record, world, scene) if record is not None else None
    return Server(world, clock, token=token, recorder=recorder, limits=limits,
                  origins=origins)


class ServerThread:
    """A server on its own thread and event loop: ``with ServerThread(world) as s:`` then
    connect to ``s.port`` (TCP) and ``s.ws_port`` (WebSocket); ports 0 pick free ones."""

    def __init__(self, server: Server, host: str = "127.0.0.1", port: int = 0,
                 ws_port: int | None = 0) -> None:
        self.server = server
        self._address = (host, port, ws_port)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="twig-server",
                                        daemon=True)

    def start(self) -> ServerThread:
        self._thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self.server.start(*self._address),
                                             self._loop).result(10)
        except BaseException:
            self._shut_loop()
            raise
        return self

    @property
    def port(self) -> int:
        return self.server.ports[0]

    @property
    def ws_port(self) -> int:
        return self.server.ports[1]

    def stop(self) -> None:
        """Stop the server (idempotent)."""
        if self._loop.is_closed():
            return
        asyncio.run_coroutine_threadsafe(self.server.close(), self._loop).result(10)
        self._shut_loop()

    def _shut_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


async def _serve_until_cancelled(server: Server, host: str, port: int, ws_port: int | None,
                                 announce: bool) -> None:
    await server.start(host, port, ws_port)
    task = asyncio.current_task()
    assert task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    if announce:
        ports = server.ports
        ws = f", WebSocket on port {ports[1]}" if len(ports) > 1 else ""
        print(f"twig: serving on {host} port {ports[0]}{ws}; Ctrl-C stops", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await server.close()


def serve_forever(scene: str | None, *, host: str = "127.0.0.1", port: int = 7777,
                  ws_port: int | None = 7778, token: str | None = None,
                  record: str | None = None, seed: int | None = None, speed: float = 1.0,
                  paused: bool = False, view_port: int | None = None,
                  origins: tuple[str, ...] = ()) -> None:
    """``twig serve``: load the scene and serve it until interrupted (Ctrl-C or SIGTERM, both
    ending the record); with ``view_port``, also the live viewer, whose command box speaks to
    this server."""
    world = open_world(scene, seed)
    server = make_server(world, speed=speed, paused=paused, token=token, record=record,
                         scene=scene, origins=origins)
    viewer = None
    if view_port is not None:
        from twig.view import serve_viewer

        viewer = serve_viewer(server.clock, command_handler=server.command_handler,
                              host=host, port=view_port)
        print(f"viewer: {viewer.url}", flush=True)
    try:
        with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
            asyncio.run(_serve_until_cancelled(server, host, port, ws_port, announce=True))
    finally:
        if viewer is not None:
            viewer.stop()
