"""``twig commands``: the catalogue for people and the JSON Schema tools for agents."""

import json

from jsonschema import Draft202012Validator

import twig
from twig.cli import main
from twig.script import Session
from twig.script.catalogue import catalogue_text, tool_schemas
from twig.server.protocol import parse_request


def tools() -> dict[str, dict]:
    return {t["name"]: t for t in tool_schemas()}


def test_every_command_is_a_valid_tool_schema_with_a_unique_name():
    schemas = tool_schemas()
    assert len({t["name"] for t in schemas}) == len(schemas)
    for tool in schemas:
        Draft202012Validator.check_schema(tool["parameters"])
        assert tool["description"] and tool["x-twig"]["kind"] in ("durative", "query",
                                                                   "instant")
    by_name = tools()
    move = by_name["body_move_node"]
    assert move["parameters"]["required"] == ["target", "node", "position"]
    assert move["parameters"]["properties"]["seconds"] == {
        "type": "number", "default": 1.0, "description": "How long the move takes, s (above 0).",
        "minimum": -1e9, "maximum": 1e9}  # every number of a request (docs/protocol.md)
    assert move["x-twig"] == {"target": "body", "command": "move-node", "kind": "durative",
                              "usage": "<body>: move-node node position [seconds=1] "
                                       "[hold=false]"}
    types = by_name["world_subscribe"]["parameters"]["properties"]["types"]
    assert types["items"]["enum"] == ["contact", "pain", "behavior", "action", "focus",
                                      "grab", "release", "hug", "controller", "removed"]
    assert "ball" in by_name["world_spawn"]["parameters"]["properties"]["type"]["enum"]


def test_every_parameter_is_typed_and_described():
    """No ``{}`` schema: each parameter says what values it takes and what it means."""
    for tool in tool_schemas():
        if tool["x-twig"]["target"] not in ("world", "body", "character"):
            continue  # commands the tests define
        for name, schema in tool["parameters"]["properties"].items():
            assert schema.get("type") or schema.get("anyOf"), (tool["name"], name)
            assert len(schema.get("description", "")) > 8, (tool["name"], name)
    props = tools()["character_walk_to"]["parameters"]["properties"]
    assert props["place"]["anyOf"][0]["minItems"] == 3
    assert props["place"]["anyOf"][1]["type"] == "string"
    gesture = tools()["character_gesture"]["parameters"]["properties"]["name"]
    assert "wave" in gesture["anyOf"][0]["enum"]


def test_a_ball_spawned_as_the_schema_says_works():
    """The schema requires what the builder requires (a ball needs a position) and lists the
    fields of each type; what it accepts runs, what it refuses is refused by the world too."""
    spawn = tools()["world_spawn"]
    validator = Draft202012Validator(spawn["parameters"])
    ball = {"type": "ball", "name": "ball2", "position": [1, 0.5, 0], "radius": 0.2}
    validator.validate(ball)
    assert not validator.is_valid({"type": "ball", "name": "ball2"})
    assert not validator.is_valid({"type": "ball", "name": "b", "position": [0, 1, 0],
                                   "height": 2})
    validator.validate({"type": "humanoid", "name": "kid2"})  # its position has a default
    world = twig.World()
    replies = []
    session = Session(world, replies.append)
    request = {"id": 1, "target": "world", "command": "spawn", "args": ball}
    session.run(parse_request(json.dumps(request).encode()).call, 1)
    assert [r.kind for r in replies] == ["done"], replies
    assert world.body("ball2").type == "ball"


def test_motion_graph_points_as_the_schema_describes():
    """``points`` is an array of [x, y, z]: given so in a JSON request, the walk starts."""
    world = twig.World()
    world.add_humanoid("kid", position=(0, 0, 0))
    tool = tools()["character_motion_graph_walk"]
    args = {"points": [[1.0, 0, 1.0], [2.0, 0, 1.5]]}
    Draft202012Validator(tool["parameters"]).validate({"target": "kid", **args})
    replies = []
    request = {"id": 2, "target": "kid", "command": "motion-graph-walk", "args": args}
    Session(world, replies.append).run(parse_request(json.dumps(request).encode()).call, 2)
    assert [r.kind for r in replies] == ["ok"], replies


def test_a_tool_call_that_fits_the_schema_runs_as_a_json_request():
    world = twig.World()
    world.add_humanoid("kid", position=(0, 0, 0), height=1.1)
    tool = tools()["body_move_node"]
    arguments = {"target": "kid", "node": "l_hand", "position": [0.3, 1.0, 0.3],
                 "seconds": 0.25}
    Draft202012Validator(tool["parameters"]).validate(arguments)
    request = {"id": 1, "target": arguments.pop("target"),
               "command": tool["x-twig"]["command"], "args": arguments}
    replies = []
    Session(world, replies.append).run(parse_request(json.dumps(request).encode()).call, 1)
    world.step(16)
    assert [r.kind for r in replies] == ["ok", "done"]


def test_the_catalogue_for_people(capsys):
    text = catalogue_text()
    assert "world commands (world: ...):" in text and "body commands (<body>: ...):" in text
    assert "~ wait seconds" in text and "? where [node]" in text
    assert main(["commands"]) == 0
    assert "move-node node position" in capsys.readouterr().out
    assert main(["commands", "--json"]) == 0
    assert {"world_wait", "body_push"} <= {t["name"] for t in json.loads(
        capsys.readouterr().out)}
