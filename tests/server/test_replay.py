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
