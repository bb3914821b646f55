"""Issue #34's reproducers: no client can break the server or another client, and every input
gets an answer (real sockets, a real server)."""

import json
import re
import signal
import subprocess
import sys
import threading
import time

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as ws_connect

import twig
from twig.cli import main
from twig.client import Client
from twig.server import Limits

PYTHON_LEAK = re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception)\b|np\.float|Traceback")


def _clean(reply: str) -> str:
    assert not PYTHON_LEAK.search(reply), reply
    return reply


def _failure_event(t, seconds: float = 5) -> dict:
    """The next line of a text client that is a failure event."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = t.line(timeout=deadline - time.monotonic())
        if line.startswith("event "):
            event = json.loads(line[len("event "):])
            if event["type"] == "failure":
                return event
    raise AssertionError("no failure event")


# ---------------------------------------------------------------- 1. the world thread survives
def test_removing_a_character_in_the_playground_never_silences_the_server(start_server,
                                                                          telnet):
    served = start_server(twig.load_scene("playground"))
    a, b = telnet(served.port), telnet(served.port)
    a.send("#1 world: remove kid")
    assert a.line() == "done 1"
    time.sleep(0.5)                                   # ticks run (or fail) after the removal
    for k in range(3):
        b.send(f"#{k} world: time")
        reply = b.line(timeout=5)
        while reply.startswith("event "):             # told the world stopped, if it did
            assert json.loads(reply[6:])["type"] == "failure"
            reply = b.line(timeout=5)
        assert reply.startswith(f'value {k} {{"t":'), reply
    clock = served.server.clock
    tick = served.server.world.tick
    time.sleep(0.3)
    assert served.server.world.tick > tick or clock.failure is not None


def test_a_tick_that_raises_pauses_the_world_and_every_client_is_told_why(start_server,
                                                                          telnet):
    served = start_server()
    world, clock = served.server.world, served.server.clock
    a, b = telnet(served.port), telnet(served.port)
    b.send("#1 world: json on")
    assert json.loads(b.line()) == {"reply": "done", "id": 1}

    def broken_stage() -> None:
        raise KeyError("kid")

    clock.submit(lambda: world.stages.add("record", broken_stage)).result(5)
    event = _failure_event(a)
    assert "stopped at tick" in event["message"] and "no entry 'kid'" in event["message"]
    _clean(event["message"])
    reply = json.loads(b.line(timeout=5))
    assert reply["reply"] == "event" and reply["event"]["type"] == "failure"
    assert clock.paused and clock.failure == event["message"]
    a.send("#2 world: time")                          # still serving: queries, commands
    assert a.line().startswith('value 2 {"t":')
    clock.submit(lambda: world.stages.remove("record", broken_stage)).result(5)
    a.send("#3 world: resume")
    assert a.line() == "done 3"
    tick = world.tick
    time.sleep(0.3)
    assert world.tick > tick + 5                      # stepping again


def test_a_record_that_cannot_be_written_stops_recording_and_serving_goes_on(
        start_server, telnet, tmp_path):
    served = start_server(record=tmp_path / "s.jsonl")
    a, b = telnet(served.port), telnet(served.port)
    served.server.recorder._file.close()              # the record file broke (a full disk)
    a.send("#1 ball: where")
    for t in (a, b):
        event = _failure_event(t)
        assert _clean(event["message"]).startswith("the session record failed (internal "
                                                   "error (I/O operation on closed file")
    assert a.line().startswith("value 1 [")
    b.send("#2 world: time")
    assert b.line().startswith('value 2 {"t":')


# ---------------------------------------------------------------- 2. per-client isolation
@pytest.mark.parametrize("bad", ['"\\ud800": where', 'world: spawn ball "\\udfff" position=(0,1,0)',
                                 '{"target": "world", "command": "spawn", "args": {"type": '
                                 '"ball", "name": "\\ud800"}}',
                                 '{"target": "\\ud800", "command": "where"}'],
                         ids=["target", "name", "json-name", "json-target"])
def test_lone_surrogates_are_refused_and_lose_no_other_clients_replies(start_server, telnet,
                                                                       bad):
    served = start_server()
    counts = [0, 0, 0]
    clients = [telnet(served.port) for _ in range(3)]

    def run(k: int) -> None:
        t = clients[k]
        for i in range(300):
            t.send(f"#{i} ball: where" if k else bad if i % 2 else f"#{i} {bad}")
        for _ in range(300 if k else 150):
            reply = t.line(timeout=10)
            counts[k] += 1
            if k == 0:
                assert reply.startswith("error"), reply

    threads = [threading.Thread(target=run, args=(k,)) for k in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert counts == [150, 300, 300]
    assert [b.name for b in served.server.world.bodies] == ["ball", "kid", "kid2"]


def test_a_lone_surrogate_over_websocket_is_an_error_and_the_connection_stays(start_server):
    served = start_server()
    with ws_connect(f"ws://127.0.0.1:{served.ws_port}") as ws:
        ws.send('#1 "\\ud800": where')
        reply = json.loads(ws.recv(timeout=5))
        assert reply["reply"] == "error" and reply["id"] == 1
        ws.send('{"id": 2, "target": "world", "command": "spawn", "args": {"type": "ball", '
                '"name": "\\ud800x"}}')
        reply = json.loads(ws.recv(timeout=5))
        assert reply["reply"] == "error" and "printable" in reply["message"]
        ws.send("#3 world: time")
        assert json.loads(ws.recv(timeout=5))["reply"] == "value"


@pytest.mark.parametrize("name", ['"a\\u0001b"', '"tab\\tb"', '"new\\nline"'])
def test_control_characters_are_refused_in_names(start_server, telnet, name):
    t = telnet(start_server().port)
    t.send(f"#1 world: spawn ball {name} position=(0, 1, 0)")
    assert _clean(t.line()).startswith("error 1 ")
    t.send("#2 world: objects")
    assert t.line() == 'value 2 [{"name":"ball","type":"ball"},{"name":"kid","type":' \
                       '"humanoid"},{"name":"kid2","type":"humanoid"}]'


# ---------------------------------------------------------------- 3. long work
def _answered_within(t, seconds: float, during: float) -> list[float]:
    """Ask ``world: time`` over and over for ``during`` seconds; each reply's delay."""
    delays = []
    end = time.monotonic() + during
    k = 0
    while time.monotonic() < end:
        start = time.monotonic()
        t.send(f"#{k} world: time")
        assert t.line(timeout=seconds * 10).startswith(f"value {k} ")
        delays.append(time.monotonic() - start)
        k += 1
        time.sleep(0.02)
    return delays


def test_step_30000_while_paused_does_not_stall_other_clients(start_server, telnet):
    served = start_server()
    a = telnet(served.port)
    a.send("#1 world: pause")
    assert a.line() == "done 1"
    tick = served.server.world.tick
    a.send("#2 world: step 30000")
    assert a.line() == "ok 2"
    delays = _answered_within(telnet(served.port), 1.0, 2.0)
    assert max(delays) < 1.0, max(delays)
    assert served.server.world.tick > tick + 100      # and the steps are running


@pytest.mark.parametrize("setup", ["world: speed 0.01", "world: pause"])
def test_a_burst_of_one_client_does_not_hold_up_another_at_any_speed(start_server, telnet,
                                                                     setup):
    """Requests beyond the per-tick budget waited for the next tick: at speed 0.01 that is
    1.7 s; and a paused world ran a whole burst before a later request of another client."""
    served = start_server()
    a, b = telnet(served.port), telnet(served.port)
    a.send(f"#0 {setup}")
    assert a.line() == "done 0"
    burst = "".join(f"#{k} world: spawn rope r{k} start=(0, 1, 3) segments=200\n"
                    f"#{k + 1} world: remove r{k}\n" for k in range(1, 250, 2))
    a.sock.sendall(burst.encode())                    # 250 requests, about 3 s of work
    a.line()                                          # the burst has started
    start = time.monotonic()
    b.send("#1 world: time")
    assert b.line(timeout=30).startswith("value 1 ")
    assert time.monotonic() - start < 0.5
    for _ in range(249):
        assert a.line(timeout=60).startswith("done ")


def test_a_long_motion_graph_walk_is_refused_at_once_naming_the_limit(start_server, telnet):
    served = start_server(twig.load_scene("playground"))
    a = telnet(served.port)
    start = time.monotonic()
    a.send("#1 kid2: motion-graph-walk (50, 0, 0)")
    reply = a.line(timeout=30)
    if reply == "ok 1":                               # refused as the walk starts
        reply = a.line(timeout=30)
    assert time.monotonic() - start < 1.0
    assert reply.startswith("error 1 ") and "at most 10 m" in reply, reply


def test_other_clients_are_answered_within_a_second_while_a_walk_is_planned(start_server,
                                                                            telnet):
    """A 9 m motion-graph walk is planned off the world's thread (about 1 to 3 s of search
    here): another client's queries meanwhile are answered within 1 s, and the walk starts."""
    served = start_server(twig.load_scene("playground"))
    a, b = telnet(served.port), telnet(served.port)
    b.send("#0 kid: where")
    b.line(timeout=120)                               # the kernels are loaded
    a.send("#1 kid2: motion-graph-walk (4, 0, -3)")
    delays = []
    for i in range(1, 21):                            # 2 s: the search is running
        start = time.monotonic()
        b.send(f"#{i} kid: where")
        assert b.line(timeout=30).startswith(f"value {i} ")
        delays.append(time.monotonic() - start)
        time.sleep(0.1)
    assert max(delays) < 1.0, delays
    assert a.line(timeout=5) == "ok 1"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:                # it starts 1.1 s (simulated) after
        a.send("#2 kid2: controller")
        reply = a.line(timeout=30)
        if '"clip":"motion-graph"' in reply:
            break
        time.sleep(0.2)
    assert '"clip":"motion-graph"' in reply, reply


def test_a_huge_cloth_is_refused_before_anything_is_allocated(start_server, telnet):
    served = start_server()
    t = telnet(served.port)
    start = time.monotonic()
    t.send("#1 world: spawn cloth c position=(0, 2, 0) resolution=1500")
    reply = t.line()
    assert time.monotonic() - start < 1.0
    assert reply.startswith("error 1 ") and "from 2 to 256" in reply, reply
    t.send("#2 world: spawn rope r start=(0, 2, 0) segments=10000000")
    assert "from 1 to 10000" in t.line()


# ---------------------------------------------------------------- 4. web pages
def test_a_web_page_from_elsewhere_cannot_open_a_websocket(start_server, capfd):
    served = start_server()
    url = f"ws://127.0.0.1:{served.ws_port}"
    with pytest.raises(InvalidStatus, match="403"):
        ws_connect(url, origin="http://evil.example")
    err, deadline = "", time.monotonic() + 10         # the server logs it on its own thread
    while "invalid Origin" not in err and time.monotonic() < deadline:
        time.sleep(0.05)
        err += capfd.readouterr().err                 # the server's log: one line, no traceback
    assert "invalid Origin header: http://evil.example" in err and "Traceback" not in err, err
    for origin in (None, "http://localhost:8080", "http://127.0.0.1"):
        with ws_connect(url, origin=origin) as ws:
            ws.send("#1 world: time")
            assert json.loads(ws.recv(timeout=5))["reply"] == "value"
    allowed = start_server(origins=("https://twig.example",))
    with ws_connect(f"ws://127.0.0.1:{allowed.ws_port}", origin="https://twig.example") as ws:
        ws.send("#1 world: time")
        assert json.loads(ws.recv(timeout=5))["reply"] == "value"
    with_token = start_server(token="s3cret")
    with ws_connect(f"ws://127.0.0.1:{with_token.ws_port}", origin="http://any.example") as ws:
        ws.send("#1 world: time")                     # any origin, but the token first
        assert "expected 'token <T>' first" in ws.recv(timeout=5)


def test_an_http_request_on_the_tcp_port_gets_one_error_and_runs_nothing(start_server,
                                                                         telnet):
    served = start_server()
    t = telnet(served.port)
    body = b"world: spawn ball from_http position=(0, 1, 0)\n"
    t.sock.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
                   b"Content-Length: %d\r\n\r\n" % len(body) + body)
    assert t.line().startswith("error this is twig's line protocol, not HTTP")
    with pytest.raises(ConnectionError):
        t.line()
    time.sleep(0.2)
    assert "from_http" not in [b.name for b in served.server.world.bodies]


@pytest.mark.parametrize("request_line", [b"GET /" + b"a" * 9000 + b" HTTP/1.1",
                                          b"POST /x?" + b"q" * 9000, b"OPTIONS * HTTP/1.0"],
                         ids=["long-url", "long-no-version", "asterisk"])
def test_an_http_request_line_however_long_closes_the_connection(start_server, telnet,
                                                                  request_line):
    """An HTTP request line over the line limit was refused as too long and the connection
    stayed, so the body line after it ran."""
    served = start_server()
    t = telnet(served.port)
    t.sock.sendall(request_line + b"\r\nHost: x\r\n\r\n"
                   b"world: spawn ball from_http position=(0, 1, 0)\n")
    assert t.line().startswith("error this is twig's line protocol, not HTTP")
    with pytest.raises(ConnectionError):
        t.line()
    time.sleep(0.2)
    assert "from_http" not in [b.name for b in served.server.world.bodies]


# ---------------------------------------------------------------- 5. no Python leaks
@pytest.mark.parametrize("line", ["world: wait 1e308", "ball: push (0,0,0) seconds=1e308",
                                  "kid: touching within=1e308", "world: wait 1" + "0" * 4400,
                                  '{"id": 1, "line": "world: wait 1' + "0" * 4400 + '"}',
                                  '{"id": 1, "target": "world", "command": "wait", "args": '
                                  '{"seconds": 1' + "0" * 4400 + "}}",
                                  "ball: push (1e308, 0, 0)"],
                         ids=["wait", "push", "touching", "zeros", "zeros-json-line",
                              "zeros-json-args", "vector"])
def test_huge_numbers_get_a_clear_error_and_the_connection_stays(start_server, telnet, line):
    served = start_server(limits=Limits(max_line=16384))
    t = telnet(served.port)
    t.send(line if line.startswith("{") else "#1 " + line)
    reply = _clean(t.line())
    assert reply.startswith("error 1 ") and ("1e+09" in reply or "characters" in reply), reply
    t.send("#2 world: time")
    assert t.line().startswith("value 2 ")


@pytest.mark.parametrize("factor", ["1e-320", "0.001", "65"])
def test_a_speed_out_of_range_is_refused_and_the_world_runs_on(start_server, telnet, factor):
    """``world: speed 1e-320`` was accepted (above 0) and the real-time loop then died on
    its wait (``dt / speed`` overflows): no client was answered again."""
    served = start_server()
    t = telnet(served.port)
    t.send(f"#1 world: speed {factor}")
    reply = _clean(t.line())
    assert reply.startswith("error 1 ") and "from 0.01 to 64" in reply, reply
    tick = served.server.world.tick
    time.sleep(0.3)
    t.send("#2 world: time")
    assert t.line(timeout=5).startswith("value 2 ")
    assert served.server.world.tick > tick + 5        # still stepping


# ---------------------------------------------------------------- 6. smaller
def test_a_websocket_message_over_64_kib_gets_an_error(start_server):
    served = start_server()
    with ws_connect(f"ws://127.0.0.1:{served.ws_port}", max_size=None) as ws:
        ws.send("#7 world: wait 1 " + "x" * 100_000)
        reply = json.loads(ws.recv(timeout=5))
        assert reply == {"reply": "error", "id": 7, "message": "line too long (max 8192 bytes)"}
        ws.send("#8 world: time")
        assert json.loads(ws.recv(timeout=5))["id"] == 8


def test_text_replies_to_word_ids_are_unambiguous(start_server, telnet):
    t = telnet(start_server().port)
    t.send('{"id": "ok", "target": "world", "command": "hash"}')
    assert re.fullmatch(r'value "ok" "[0-9a-f]+"', t.line())
    t.send('{"id": "done", "line": "world: nothing"}')
    assert t.line().startswith('error "done" world: unknown command')
    t.send('{"id": 5, "line": "world: resume"}')
    assert t.line() == "done 5"


def test_world_is_a_reserved_name(start_server, telnet):
    t = telnet(start_server().port)
    t.send("#1 world: spawn ball world position=(0, 1, 0)")
    assert "'world' cannot name an object" in t.line()


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_the_record_is_ended_on_sigterm_and_sigint_and_replays(tmp_path, stop, capsys):
    log = tmp_path / "s.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "twig", "serve", "demo", "--port", "0", "--ws-port", "-1",
         "--record", str(log)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = int(re.search(r"port (\d+)", proc.stdout.readline()).group(1))
        with Client(port=port) as c:
            c.command("adult: push (0, 0, 30) node=head")
            c.command("world: wait 0.2")
    finally:
        proc.send_signal(stop)
        proc.wait(timeout=20)
    assert proc.returncode == 0, proc.stderr.read()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert "end" in records[-1] and len(records) == 5
    assert main(["replay", str(log)]) == 0
    assert "matches the recording" in capsys.readouterr().out
