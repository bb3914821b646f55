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
    assert move["parameters"]["properties"]["seconds"] == {"type": "number", "default": 1.0}
    assert move["x-twig"] == {"target": "body", "command": "move-node", "kind": "durative",
                              "usage": "<body>: move-node node position [seconds=1] "
                                       "[hold=false]"}
    types = by_name["world_subscribe"]["parameters"]["properties"]["types"]
    assert types["items"]["enum"] == ["contact", "pain", "behavior", "action", "focus",
                                      "grab", "release", "hug", "controller"]
    assert by_name["world_spawn"]["parameters"]["additionalProperties"] is True


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
