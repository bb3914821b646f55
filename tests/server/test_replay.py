"""A recorded session replays to the identical state hash."""

import json
import time

from twig import load_scene
from twig.cli import main
from twig.client import Client
from twig.server import replay


def test_replay_of_a_recorded_session_reaches_the_identical_state_hash(
        start_server, make_playground, tmp_path, capsys):
    log = tmp_path / "session.jsonl"
    served = start_server(record=log, scene=None)
    with Client(port=served.port) as a, Client(port=served.port) as b:
        a.command("kid: move-node l_hand (-1.3, 1.4, 0.5) seconds=0.4 hold=true")
        b.command("world: spawn ball ball2 position=(1, 1.5, 0.3) velocity=(-1, 0, 0)")
        b.command("ball: push (0, 1.2, -0.9)", wait=False)
        a.command("kid2: push (0, 0, 40) node=chest seconds=0.2")
        a.command("world: wait 0.3")
        b.command("world: remove ball2")
        time.sleep(0.2)
    served.stop()
    world = served.server.world
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records[0]["twig"] == "session" and records[-1]["hash"] == world.state_hash()
    assert len(records) == 2 + 8                 # the header, 8 commands, the end
    result = replay(log, make_playground())
    assert result.world.tick == world.tick
    assert result.matches and result.world.state_hash() == world.state_hash()
    assert result.errors == 0
    assert main(["replay", str(log)]) == 2          # the world was built in Python, not a scene
    assert "not the recorded one" in capsys.readouterr().err


def test_twig_replay_rebuilds_a_recorded_scene(start_server, tmp_path, capsys):
    log = tmp_path / "demo.jsonl"
    served = start_server(load_scene("demo"), record=log, scene="demo")
    with Client(port=served.port) as c:
        c.command("adult: push (0, 0, 30) node=head")
        c.command("world: wait 0.2")
    served.stop()
    assert main(["replay", str(log)]) == 0
    assert "matches the recording" in capsys.readouterr().out


def test_json_requests_with_lists_and_objects_are_recorded_and_replay(
        start_server, make_playground, tmp_path, telnet):
    log = tmp_path / "json.jsonl"
    served = start_server(record=log, scene=None)
    t = telnet(served.port)
    requests = [
        {"id": 1, "target": "kid2", "command": "motion-graph-walk",
         "args": {"points": [[1.5, 0, 1], [2, 0, 2.5]]}},
        {"id": 2, "target": "world", "command": "subscribe", "args": {"types": ["pain"]}},
        {"id": 3, "target": "kid", "command": "play-clip",
         "args": {"clip": "wave", "joint_map": {"head": "Head"}}},
        {"id": 4, "line": "world: wait 0.2"},
    ]
    for request in requests:
        t.send(json.dumps(request))
    finals = {}
    while set(finals) != {1, 2, 3, 4}:
        kind, *rest = t.line(timeout=60).split(" ", 2)
        if kind in ("done", "error"):
            finals[int(rest[0])] = kind
    assert finals == {1: "done", 2: "done", 3: "error", 4: "done"}  # joint_map: BVH files only
    served.stop()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["request"] for r in records[1:-1] if "request" in r] == [
        {k: v for k, v in r.items() if k != "id"} for r in requests[:3]]
    result = replay(log, make_playground())
    assert result.matches and result.commands == 4 and result.errors == 1
