"""``twig mcp [SCENE]``: a world served over the Model Context Protocol (the official ``mcp``
SDK's low-level server), on stdio or streamable HTTP.

Tools are the registered commands and ``look`` (:mod:`twig.mcp.tools`); resources are the
world's objects, its state and its recent events (JSON). The world runs in real time, or, with
``stepped``, stands paused and moves only when the agent calls ``world_step``.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

import twig
from twig.errors import TwigError
from twig.mcp.bridge import WorldBridge
from twig.mcp.tools import Tools
from twig.physics import PhysicsWorld
from twig.script.runner import open_world
from twig.server.run import make_clock
from twig.server.server import LOCAL_HOSTS

RESOURCES = {
    "twig://world/objects": ("objects", "Every object: its name and type, in creation order."),
    "twig://world/state": ("state", "Time, state hash and every object's type, centre of "
                                    "mass (m), velocity (m/s), pain, sleep and node positions."),
    "twig://world/events": ("events", "The most recent events (behaviour switches, focus, "
                                      "contacts, pain, actions, grabs, hugs), oldest first."),
}
"""Resource URI -> (what it reads, description)."""
INSTRUCTIONS = """twig: a physics world of stick-figure characters and props (metres, seconds,
y up, ground y = 0). Read twig://world/objects to learn the names, call character_* tools on
characters (walk_to, approach, grab, hug, sit...), body_* tools on any object (where, push),
world_* tools on the world (spawn, wait, state), and look to see a picture of it.
Durative tools end with status succeeded, failed or interrupted and the reason."""


def build_server(world: PhysicsWorld, *, stepped: bool = False, speed: float = 1.0,
                 max_wait: float = 300.0) -> tuple[Server[Any], Tools]:
    """The MCP server for ``world`` and its tools; the world's clock starts with the
    server's lifespan (stepped: paused)."""
    clock = make_clock(world, speed=speed, paused=stepped)
    bridge = WorldBridge(world, clock)
    tools = Tools(bridge, max_wait=max_wait)

    @contextlib.asynccontextmanager
    async def lifespan(_: Server[Any]):
        clock.start()
        try:
            yield {}
        finally:
            with contextlib.suppress(TwigError):
                await bridge.run(bridge.close)
            clock.stop()
            tools.painter.close()

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools.list())

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in tools.schemas:
            raise MCPError(types.INVALID_PARAMS, f"unknown tool {params.name!r}")
        return await tools.call(params.name, params.arguments, ctx.session.report_progress)

    async def list_resources(ctx, params) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[
            types.Resource(uri=uri, name=what, description=text, mime_type="application/json")
            for uri, (what, text) in RESOURCES.items()])

    async def read_resource(ctx, params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri not in RESOURCES:
            raise MCPError(types.INVALID_PARAMS, f"unknown resource {uri!r} (resources: "
                                                 f"{', '.join(RESOURCES)})")
        value = await bridge.run(_reader(bridge, RESOURCES[uri][0]))
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, mime_type="application/json", text=json.dumps(value))])

    server: Server[Any] = Server(
        "twig", version=twig.__version__, instructions=INSTRUCTIONS, lifespan=lifespan,
        on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
        on_read_resource=read_resource)
    return server, tools


def _reader(bridge: WorldBridge, what: str) -> Callable[[], Any]:
    """A function reading one resource on the world's thread."""
    if what == "events":
        return lambda: list(bridge.events)
    return lambda: getattr(bridge.session.target, what)()


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client on this process's stdin and stdout."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def http_app(server: Server[Any], host: str, token: str | None) -> Callable[..., Awaitable[None]]:
    """The streamable HTTP app (path ``/mcp``); with ``token``, every request must carry
    ``Authorization: Bearer <token>`` (401 otherwise)."""
    app = server.streamable_http_app(host=host)
    if token is None:
        return app
    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"text/plain"),
                                        (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body",
                            "body": b"this server needs 'Authorization: Bearer <token>'\n"})
                return
        await app(scope, receive, send)

    return guarded


def check_host(host: str, token: str | None) -> None:
    """The rule of ``twig serve``: off this machine only with a token."""
    if host not in LOCAL_HOSTS and not token:
        raise TwigError(f"serving on {host} (not this machine only) needs a token "
                        "(--token T); clients then send 'Authorization: Bearer T'")


def mcp_main(scene: str | None, *, seed: int | None = None, stepped: bool = False,
             speed: float = 1.0, http: bool = False, host: str = "127.0.0.1",
             port: int = 8765, token: str | None = None, max_wait: float = 300.0) -> int:
    """``twig mcp``: load the scene and serve it until the client leaves (stdio) or Ctrl-C
    (HTTP). Nothing but the protocol goes to stdout."""
    import anyio

    if http:
        check_host(host, token)
    world = open_world(scene, seed)
    server, _ = build_server(world, stepped=stepped, speed=speed, max_wait=max_wait)
    if not http:
        anyio.run(serve_stdio, server)
        return 0
    import uvicorn

    print(f"twig mcp: serving on http://{host}:{port}/mcp; Ctrl-C stops", file=sys.stderr,
          flush=True)
    config = uvicorn.Config(http_app(server, host, token), host=host, port=port,
                            log_level="warning")
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run()
    return 0
