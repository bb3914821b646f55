"""The MCP tools: every registered command (the catalogue of ``twig commands --json``) and
``look``, an image of the current frame.

A query returns its value as structured content ``{"value": ...}``; an instant command
``{"status": "done"}``; a durative command waits for its action while the clock runs,
reporting progress (simulated seconds so far), and returns ``{"status": "succeeded" |
"failed" | "interrupted", "reason": ...}``. While the world is paused (stepped by the agent),
a durative command returns once started (``"running"``) and ``world_step`` moves time on;
every result lists under ``ended`` the earlier commands that have ended since.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from typing import Any

import mcp_types as types
from jsonschema import Draft202012Validator

from twig.mcp.bridge import Started, WorldBridge
from twig.mcp.look import MAX_SIDE, MIN_SIDE, Painter, capture
from twig.script.catalogue import tool_schemas

PROGRESS_EVERY = 0.25
"""Wall-clock seconds between progress notifications of a running command."""
LOOK = {
    "name": "look",
    "description": "An image (PNG) of the world as it is now, drawn like the viewer: every "
                   "body from the front-right, framed to show what moves, the simulated time "
                   "written in the corner. Use it to see where things are.",
    "parameters": {
        "type": "object", "additionalProperties": False, "required": [],
        "properties": {
            "width": {"type": "integer", "minimum": MIN_SIDE, "maximum": MAX_SIDE,
                      "default": 640, "description": "Image width, pixels."},
            "height": {"type": "integer", "minimum": MIN_SIDE, "maximum": MAX_SIDE,
                       "default": 360, "description": "Image height, pixels."},
            "follow": {"type": "string", "minLength": 1,
                       "description": "Centre the picture on this object (its name) and "
                                      "caption its state; leave out to frame everything."},
            "caption": {"type": "boolean", "default": True,
                        "description": "Write the simulated time (and the followed object's "
                                       "state) on the image."}}},
}


class Tools:
    """The tool list and how each call runs.

    Parameters
    ----------
    bridge
        The world the tools act on.
    max_wait
        Longest a durative call waits for its action, wall-clock seconds; then it returns
        ``"running"`` and the end is reported later under ``ended``.
    """

    def __init__(self, bridge: WorldBridge, max_wait: float = 300.0) -> None:
        self.bridge = bridge
        self.max_wait = max_wait
        self.painter = Painter()
        self.schemas = {t["name"]: t for t in [*tool_schemas(), LOOK]}
        self._validators = {name: Draft202012Validator(t["parameters"])
                            for name, t in self.schemas.items()}

    def list(self) -> list[types.Tool]:
        """Every tool with its JSON Schema and hints for clients."""
        out = []
        for name, t in self.schemas.items():
            kind = t.get("x-twig", {}).get("kind", "query")
            out.append(types.Tool(
                name=name, description=t["description"], input_schema=t["parameters"],
                annotations=types.ToolAnnotations(read_only_hint=kind == "query",
                                                  destructive_hint=name == "world_remove",
                                                  open_world_hint=False)))
        return out

    async def call(self, name: str, arguments: dict[str, Any] | None,
                   progress: Any) -> types.CallToolResult:
        """Run tool ``name``; bad arguments and failed commands are tool errors (the session
        goes on). ``progress(done, total, message)`` is awaited while a command runs."""
        args = dict(arguments or {})
        problems = sorted(self._validators[name].iter_errors(args), key=lambda e: e.path)
        if problems:
            where = "/".join(str(p) for p in problems[0].absolute_path) or "arguments"
            return _error(f"{name}: {where}: {problems[0].message}")
        if name == "look":
            return await self._look(args)
        twig = self.schemas[name]["x-twig"]
        target = "world" if twig["target"] == "world" else args.pop("target")
        ran = await self.bridge.call(name, target, twig["command"], args)
        if ran.error is not None:
            return _error(ran.error)
        if ran.kind == "query":
            return self._result(json.dumps(ran.value), {"value": ran.value})
        if ran.kind == "instant":
            return self._result("done", {"status": "done"})
        return await self._durative(ran.started, progress)

    async def _durative(self, started: Started, progress: Any) -> types.CallToolResult:
        bridge = self.bridge
        waits = not bridge.clock.paused or started.action.name == "step"
        deadline = time.monotonic() + self.max_wait
        sent = -1.0
        while waits and not started.ended.is_set() and time.monotonic() < deadline:
            try:
                await asyncio.wait_for(started.ended.wait(), PROGRESS_EVERY)
            except TimeoutError:
                report = bridge.report(started)
                if report["seconds"] > sent:
                    sent = report["seconds"]
                    await progress(sent, None, f"{report['agent']}: {report['command']} "
                                               f"running, {sent:.2f} s simulated")
        report = bridge.report(started)
        text = f"{report['agent']}: {report['command']} {report['status']}" + (
            f": {report['reason']}" if report["reason"] else "")
        if report["status"] == "running":
            text += (" (the world is paused: world_step moves time on)" if bridge.clock.paused
                     else f" after {self.max_wait:g} s of waiting")
        result = self._result(text, report)
        result.is_error = report["status"] in ("failed", "interrupted")
        return result

    def _result(self, text: str, structured: dict[str, Any]) -> types.CallToolResult:
        """A result with the world's time and the earlier commands that ended since."""
        structured = {**structured, "t": round(self.bridge.world.time, 6)}
        ended = self.bridge.ended()
        if ended:
            structured["ended"] = ended
            text += "; ended since: " + ", ".join(
                f"#{e['action']} {e['agent']}: {e['command']} {e['status']}" for e in ended)
        return types.CallToolResult(content=[types.TextContent(text=text)],
                                    structured_content=structured)

    async def _look(self, args: dict[str, Any]) -> types.CallToolResult:
        size = (args.get("width", 640), args.get("height", 360))
        follow = args.get("follow")
        bridge = self.bridge
        try:
            frame = await bridge.run(lambda: capture(bridge.world, size, follow,
                                                     args.get("caption", True)))
            png = await self.painter.png(frame, size)
        except Exception as e:  # no such object; no OpenGL context here
            return _error(f"look: {e}")
        return types.CallToolResult(content=[
            types.ImageContent(data=base64.b64encode(png).decode("ascii"),
                               mime_type="image/png"),
            types.TextContent(text=f"{size[0]}x{size[1]} image at t = "
                                   f"{bridge.world.time:.3f} s")])


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)
