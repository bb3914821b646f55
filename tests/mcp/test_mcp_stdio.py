"""``twig mcp SCENE`` driven by the official SDK's own client over stdio, as an agent would."""

import asyncio
import base64
import io
import itertools
import json
import os
import sys

import numpy as np
from mcp import Client, StdioServerParameters
from PIL import Image

from twig.script.catalogue import tool_schemas


def serve(*args: str) -> Client:
    return Client(StdioServerParameters(command=sys.executable, env=dict(os.environ),
                                        args=["-m", "twig", "mcp", *args]))


async def session(scene: str) -> None:
    async with serve(scene) as client:
        # Every registered command is a tool with the catalogue's schema, and look.
        listed = {t.name: t for t in (await client.list_tools()).tools}
        catalogue = {t["name"]: t["parameters"] for t in tool_schemas()
                     if t["x-twig"]["target"] in ("world", "body", "character")}
        assert set(listed) == set(catalogue) | {"look"}
        assert listed["character_walk_to"].input_schema == catalogue["character_walk_to"]

        # A query: structured content.
        where = await client.call_tool("body_where", {"target": "ball"})
        assert not where.is_error
        assert np.allclose(where.structured_content["value"], [1.5, 0.11, 1.0], atol=0.02)

        # A durative walk to completion, with progress notifications on the way.
        progress: list[tuple[float, str]] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, message or ""))

        walk = await client.call_tool("character_walk_to",
                                      {"target": "kid", "place": [0.0, 0.0, 1.5]},
                                      progress_callback=on_progress)
        report = walk.structured_content
        assert not walk.is_error, walk.content
        assert report["status"] == "succeeded" and report["command"] == "walk-to"
        assert report["seconds"] > 0.5
        assert len(progress) >= 2 and "kid: walk-to running" in progress[0][1]
        assert all(b[0] > a[0] for a, b in itertools.pairwise(progress))
        hips = (await client.call_tool("character_status", {"target": "kid"}))
        assert abs(hips.structured_content["value"]["hips"][2] - 1.5) < 0.15

        # Resources: the objects, the state, the recent events.
        objects = json.loads((await client.read_resource("twig://world/objects"))
                             .contents[0].text)
        assert [o["name"] for o in objects] == ["kid", "ball", "chair"]
        events = json.loads((await client.read_resource("twig://world/events"))
                            .contents[0].text)
        assert {"type": "action", "agent": "kid", "name": "walk-to", "status": "done"}.items() \
            <= next(e for e in events if e["type"] == "action" and e["status"] == "done").items()

        # An image of the current frame: a real PNG of the size asked for, not blank.
        look = await client.call_tool("look", {"width": 320, "height": 240})
        assert not look.is_error, look.content
        image = look.content[0]
        assert image.mime_type == "image/png"
        png = base64.b64decode(image.data)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
        assert pixels.shape == (240, 320, 3)
        assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 50

        # Bad arguments and failed commands are tool errors; the session goes on.
        for name, args in [("character_walk_to", {"target": "kid", "place": {"x": 1}}),
                           ("character_walk_to", {"target": "kid"}),
                           ("body_push", {"target": "ball", "vector": [1, 2]}),
                           ("world_wait", {"seconds": "soon"}),
                           ("world_time", {"extra": 1}),
                           ("character_grab", {"target": "nobody", "item": "ball"}),
                           ("character_sit", {"target": "kid", "chair": "ball"})]:
            bad = await client.call_tool(name, args)
            assert bad.is_error, (name, args)
            assert bad.content[0].text.strip()
        time = await client.call_tool("world_time", {})
        assert time.structured_content["value"]["t"] > 0


def test_an_agent_session_over_stdio(scene):
    asyncio.run(session(scene))


async def stepped(scene: str) -> None:
    async with serve(scene, "--stepped") as client:
        walk = await client.call_tool("character_walk_to",
                                      {"target": "kid", "place": [0.0, 0.0, 1.0]})
        assert walk.structured_content["status"] == "running"
        assert walk.structured_content["t"] == 0.0
        assert (await client.call_tool("world_time", {})).structured_content["value"] == \
            {"t": 0.0, "tick": 0}
        step = await client.call_tool("world_step", {"ticks": 300})
        assert step.structured_content["status"] == "succeeded"
        assert step.structured_content["t"] == 5.0
        ended = step.structured_content["ended"]
        assert [(e["command"], e["status"]) for e in ended] == [("walk-to", "succeeded")]
        await client.call_tool("character_walk_to", {"target": "kid", "place": "ball"})
        stop = await client.call_tool("character_stop", {"target": "kid"})
        assert [(e["command"], e["status"], e["reason"]) for e in
                stop.structured_content["ended"]] == [("walk-to", "interrupted",
                                                       "replaced by walk")]


def test_the_agent_steps_the_world(scene):
    """With --stepped, time moves only when the agent calls world_step; an action started
    meanwhile is reported when it ends."""
    asyncio.run(stepped(scene))
