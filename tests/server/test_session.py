"""Sessions over real sockets: telnet lines, ok then done, queries, JSON, two clients."""

import json
import time

import numpy as np
import pytest

from twig.client import Client
from twig.errors import ScriptError, TwigError


def test_a_telnet_session_gets_ok_then_done(start_server, telnet):
    served = start_server()
    t = telnet(served.port)
    t.send("#1 world: wait 0.5")
    assert t.line() == "ok 1"
    start = time.monotonic()
    assert t.line() == "done 1"
    assert 0.3 < time.monotonic() - start < 2.0      # half a second of simulated time
    t.send("kid: move-node l_hand (-0.9, 1.2, 0.4) seconds=0.3")
    assert t.line() == "ok"
    assert t.line() == "done"
    t.send("#7 kid: where l_hand")
    reply = t.line()
    assert reply.startswith("value 7 ")
    assert np.allclose(json.loads(reply[len("value 7 "):]), (-0.9, 1.2, 0.4), atol=0.05)
    t.send("#8 kid: jump")
    assert t.line().startswith("error 8 kid: unknown command 'jump'")
    t.send("#9 world: time")                           # the connection stayed open
    assert t.line().startswith('value 9 {"t":')


def test_telnet_kid_approach_ball(start_server, telnet):
    """Issue #7's first acceptance line, word for word: ``kid: approach ball``."""
    t = telnet(start_server().port)
    t.send("#1 kid: approach ball")
    assert t.line() == "ok 1"
    assert t.line(timeout=20) == "done 1"
    t.send("#2 kid: status")
    status = json.loads(t.line()[len("value 2 "):])
    ball = (0.0, 0.11, 2.0)
    assert np.hypot(status["hips"][0] - ball[0], status["hips"][2] - ball[2]) < 0.7
    assert status["upright"]


def test_json_mode_and_json_requests(start_server, telnet):
    t = telnet(start_server().port)
    t.send("#1 world: json on")
    assert json.loads(t.line()) == {"reply": "done", "id": 1}
    t.send(json.dumps({"id": "a", "target": "ball", "command": "where"}))
    reply = json.loads(t.line())
    assert reply["reply"] == "value" and reply["id"] == "a"
    assert reply["value"] == pytest.approx([0, 0.11, 2], abs=0.01)
    t.send(json.dumps({"id": 3, "target": "world", "command": "subscribe",
                       "args": {"types": ["pain", "contact"]}}))
    assert json.loads(t.line()) == {"reply": "done", "id": 3}
    t.send(json.dumps({"id": 4, "line": "world: wait 0.1"}))
    assert [json.loads(t.line())["reply"] for _ in range(2)] == ["ok", "done"]
    t.send(json.dumps({"id": 5, "target": "ball", "command": "push",
                       "args": {"vector": "up"}}))
    error = json.loads(t.line())
    assert error["reply"] == "error" and "expected a vector" in error["message"]


def test_two_clients_drive_two_bodies_in_parallel_and_events_reach_only_subscribers(
        start_server):
    served = start_server()
    with Client(port=served.port) as a, Client(port=served.port) as b, \
            Client(port=served.port) as quiet:
        a.command("world: subscribe action")
        quiet.command("world: subscribe pain")
        ra = a.send("kid: move-node l_hand (-1.2, 1.3, 0.4) seconds=0.5")
        rb = b.send("kid2: move-node r_hand (1.2, 1.3, 0.4) seconds=0.5")
        assert a.reply(ra)["reply"] == "ok" and b.reply(rb)["reply"] == "ok"
        started = time.monotonic()
        assert a.reply(ra)["reply"] == "done" and b.reply(rb)["reply"] == "done"
        assert time.monotonic() - started < 1.5        # both ran at once, not one after another
        assert a.command("kid: where l_hand") == pytest.approx([-1.2, 1.3, 0.4], abs=0.05)
        assert b.command("kid2: where r_hand") == pytest.approx([1.2, 1.3, 0.4], abs=0.05)
        seen = [a.event(timeout=2) for _ in range(4)]
        assert sorted((e["agent"], e["status"]) for e in seen) == [
            ("kid", "done"), ("kid", "start"), ("kid2", "done"), ("kid2", "start")]
        assert b.event(timeout=0.3) is None              # never subscribed
        assert quiet.event(timeout=0.3) is None          # subscribed to pain only


def test_a_failed_action_is_an_error_reply(start_server):
    with Client(port=start_server().port) as c:
        rid = c.send("kid: move-node l_hand (-1, 1.5, 1) seconds=1")
        assert c.reply(rid)["reply"] == "ok"
        c.command("kid: pin l_hand")
        with pytest.raises(ScriptError, match="kid: move-node failed: l_hand stopped"):
            c._inbox.outcome(c.reply(rid))


def test_websocket_speaks_json(start_server):
    from websockets.sync.client import connect

    served = start_server()
    with connect(f"ws://127.0.0.1:{served.ws_port}") as ws:
        ws.send(json.dumps({"id": 1, "target": "kid", "command": "where",
                            "args": {"node": "head"}}))
        reply = json.loads(ws.recv(timeout=5))
        assert reply["reply"] == "value" and reply["id"] == 1 and len(reply["value"]) == 3
        ws.send("#2 world: wait 0.1")
        assert [json.loads(ws.recv(timeout=5))["reply"] for _ in range(2)] == ["ok", "done"]
        ws.send("#3 kid: __class__")
        assert json.loads(ws.recv(timeout=5))["reply"] == "error"


def test_command_handler_for_an_embedded_ui(start_server):
    served = start_server()
    handler = served.server.command_handler
    assert handler("ball: where").startswith("value [")
    assert handler("world: wait 0.1") == "ok"
    assert handler("ball: __dict__").startswith("error ")
    assert handler("") == ""


def test_a_token_is_required_off_localhost_and_checked_first(start_server, telnet):
    with pytest.raises(TwigError, match="needs a token"):
        start_server(host="0.0.0.0")
    served = start_server(token="s3cret")
    intruder = telnet(served.port)
    intruder.send("world: objects")
    assert intruder.line().startswith("error expected 'token <T>' first")
    with pytest.raises(ConnectionError):
        intruder.line()
    with Client(port=served.port, token="s3cret") as c:
        assert [o["name"] for o in c.command("world: objects")] == ["ball", "kid", "kid2"]
