"""Arguments generated from every tool's JSON Schema (hypothesis-jsonschema), sent as JSON
requests of the line protocol and as MCP tool calls: no call fails on its arguments' shape.

A call may fail on what the arguments mean (an unknown object, a speed out of range, a chair
that is a ball), with a clear message; it may never be refused for a shape the schema allows,
nor crash (``internal error``), nor drop the MCP session."""

import asyncio
import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from mcp import Client

from twig.mcp import build_server
from twig.scenes import load_scene
from twig.script import Session
from twig.script.catalogue import tool_schemas
from twig.server.protocol import parse_request

NAMES = ["kid", "ball", "chair", "kid/l_hand", "ball/0"]
"""Names in the test scene, drawn in place of generated strings half of the time."""
SHAPE = re.compile(
    r"unknown parameter|missing parameter|given twice|takes at most|args\[|malformed|"
    r"request field|internal error|unknown field|missing field|field '\w+': expected|"
    r"parameter '\w+': expected (?!the name of a \w+, but)|is not valid|is a required|"
    r"is not of type|additional properties")
"""Messages that blame an argument's shape (as opposed to its meaning)."""
MCP_EXAMPLES = 3
"""Recorded arguments per tool replayed over MCP."""


def branches(schema: dict) -> list[dict]:
    """``world_spawn``'s chain of ``if type is T then ...``, as one object schema per type."""
    out = []
    node = schema
    while "if" in node:
        kind = node["if"]["properties"]["type"]["const"]
        then = node["then"]
        props = {"type": {"const": kind}, "name": schema["properties"]["name"],
                 **then["properties"]}
        out.append({"type": "object", "properties": props, "required": then["required"],
                    "additionalProperties": False})
        node = node.get("else", {})
    return out


def arguments(tool: dict) -> st.SearchStrategy:
    schema = tool["parameters"]
    if "if" in schema:
        return st.one_of([from_schema(b) for b in branches(schema)])
    return from_schema(schema)


def named(tool: dict, args: dict, data: st.DataObject) -> dict:
    """Half the time, put names of the scene's objects in place of generated strings."""
    props = tool["parameters"]["properties"]
    kind = tool["x-twig"]["target"]
    if kind != "world":
        args["target"] = data.draw(st.sampled_from(["kid"] if kind == "character" else
                                                    ["kid", "ball", "chair"]))
    for key, value in list(args.items()):
        takes_name = props.get(key, {}).get("minLength") == 1 or any(
            s.get("minLength") == 1 for s in props.get(key, {}).get("anyOf", []))
        if key != "target" and isinstance(value, str) and takes_name \
                and data.draw(st.booleans()):
            args[key] = data.draw(st.sampled_from(NAMES))
    return args


def json_request(tool: dict, args: dict) -> bytes:
    args = dict(args)
    target = "world" if tool["x-twig"]["target"] == "world" else args.pop("target")
    return json.dumps({"id": 1, "target": target, "command": tool["x-twig"]["command"],
                       "args": args}).encode()


def test_generated_arguments_never_fail_on_shape(scene):
    world = load_scene(scene)
    world.step()
    start = world.snapshot()
    recorded: dict[str, list[dict]] = {}
    tools = [t for t in tool_schemas() if t["x-twig"]["target"] in ("world", "body",
                                                                      "character")]
    assert len(tools) >= 53
    for tool in tools:
        check_json_mode(tool, world, start, recorded)()
    asyncio.run(over_mcp(scene, recorded))


def check_json_mode(tool: dict, world, start, recorded: dict[str, list[dict]]):
    """A hypothesis test of one tool: its generated arguments as JSON requests, each on the
    scene as it started, followed by three ticks."""

    @settings(max_examples=12, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(args=arguments(tool), data=st.data())
    def run(args, data):
        args = named(tool, args, data)
        recorded.setdefault(tool["name"], []).append(dict(args))
        replies = []
        world.restore(start)
        request = parse_request(json_request(tool, args))
        assert request.call is not None, (tool["name"], args, request.error)
        Session(world, replies.append).run(request.call, 1)
        world.step(3)
        for reply in replies:
            if reply.kind == "error":
                assert not SHAPE.search(reply.data), (tool["name"], args, reply.data)

    return run


async def over_mcp(scene: str, recorded: dict[str, list[dict]]) -> None:
    world = load_scene(scene)
    server, _ = build_server(world, stepped=True, max_wait=0.2)
    async with Client(server) as client:
        calls = errors = 0
        for name, examples in recorded.items():
            for args in examples[:MCP_EXAMPLES]:
                result = await client.call_tool(name, args)
                calls += 1
                if result.is_error:
                    errors += 1
                    text = result.content[0].text
                    assert not SHAPE.search(text), (name, args, text)
        assert calls == sum(min(len(e), MCP_EXAMPLES) for e in recorded.values()) >= 100
        # Bad arguments are tool errors, and the session goes on.
        bad = await client.call_tool("body_push", {"target": "ball", "vector": "up"})
        assert bad.is_error and "vector" in bad.content[0].text
        time = await client.call_tool("world_time", {})
        assert not time.is_error
