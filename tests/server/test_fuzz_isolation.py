"""Issue #34's acceptance fuzz: over 20,000 generated and mutated lines (hypothesis, and a
seeded mutator of valid commands: surrogates, huge numbers, HTTP request lines, JSON) sent over
real sockets to a running ``twig serve``, while a well-behaved client (a process of its own)
must get every reply within a second of wall-clock time; the server's memory stays within
50 MB of where it started."""

import contextlib
import json
import random
import re
import socket
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from processes import start

from twig.server.server import HTTP_REQUEST

SCENE = """
[world]
seed = 3
[[object]]
type = "ball"
name = "ball"
position = [0, 0.11, 2]
[[object]]
type = "humanoid"
name = "kid"
position = [-1, 0, 0]
preset = "child"
[[object]]
type = "humanoid"
name = "kid2"
position = [1, 0, 0]
preset = "child"
[[object]]
type = "rope"
name = "rope"
start = [0, 2, -1]
segments = 6
"""
VALID = [
    "world: time", "world: objects", "world: hash", "world: state nodes=false",
    "world: wait 0.05", "world: pause", "world: resume", "world: step 3", "world: speed 2",
    "world: speed 1", "world: subscribe contact", "world: unsubscribe", "world: json on",
    "world: json off", "ball: where", "ball: push (0, 1, 0.5)",
    "ball: push (0, 0, 1) seconds=0.1", "ball: velocity", "kid: where l_hand",
    "kid: touching within=0.5", "kid: move-node l_hand (-0.9, 1.2, 0.4) seconds=0.2",
    "kid: pin l_foot", "kid: unpin l_foot", "kid2: status", "kid2: pain", "rope: where",
    "world: spawn ball b1 position=(0.5, 1, 0.5)", "world: remove b1",
    "world: spawn stick s1 position=(0, 1, 1) length=0.5", "world: remove s1",
    "kid: approach ball", "- kid2: look-at ball", "ball: push (0, 2, 0) &",
]
EXTREMES = ["1e308", "-1e308", "1e9", "1000000001", "1" + "0" * 4400, "nan", "inf", "-0",
            "1e-320", "99999999999999999999", "0x10", "1_000", "(1e308, 1e308, 1e308)",
            "(nan, 0, 0)", '"\\ud800"', '"\\u0000"', '"a\\tb"', "world", "__class__"]
INSERTS = ["\\ud800", "\\udfff", '"', "\\", "(", ")", ",", "=", "#", "&", "-", "\x00", "\x07",
           "\x7f", "\x1b[31m", "\t", "é", "\u2028", "\ufeff", "{", "}", ":", " " * 50]
HTTP = ["GET / HTTP/1.1", "POST / HTTP/1.1", "OPTIONS * HTTP/1.0", "PUT /x HTTP/2",
        "HEAD /index.html HTTP/1.1"]
LEAK = re.compile(r"\b[A-Z][A-Za-z]*(Error|Exception)\b|np\.float|Traceback|object at 0x")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
"""A name or string the client sent, quoted back in an error (hypothesis also draws words like
``BvhError`` from twig's source): not a leak."""
NUMBER = re.compile(r"-?\d+(\.\d+)?(e-?\d+)?|\([^)]*\)")
KINDS = ("ok", "done", "error", "value", "event")


def mutate(rng: random.Random) -> bytes:
    """One line: a valid command, changed in one to three ways."""
    line = rng.choice(VALID)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(9)
        if op == 0:                                    # an extreme number or value
            spots = list(NUMBER.finditer(line))
            value = rng.choice(EXTREMES)
            if spots:
                m = rng.choice(spots)
                line = line[:m.start()] + value + line[m.end():]
            else:
                line += f" {rng.choice(['seconds', 'within', 'x', 'nodes'])}={value}"
        elif op == 1:                                  # insert a character or escape
            k = rng.randint(0, len(line))
            line = line[:k] + rng.choice(INSERTS) + line[k:]
        elif op == 2 and len(line) > 2:                # cut a span
            a = rng.randrange(len(line))
            line = line[:a] + line[a + rng.randint(1, 8):]
        elif op == 3:                                  # as JSON, with a weird value
            target, _, rest = line.partition(": ")
            words = rest.split(" ", 1)
            args = {"seconds": rng.choice([1e308, -1, 10 ** 50, "\ud800", [1, 2], None, {}])}
            line = json.dumps({"id": rng.choice([1, "ok", "x" * 70, [], None, 2 ** 70]),
                               "target": target, "command": words[0], "args": args},
                              ensure_ascii=rng.random() < 0.5)
        elif op == 4:                                  # the line inside JSON
            line = json.dumps({"id": rng.randint(0, 99), "line": line})
        elif op == 5 and rng.random() < 0.2:           # an HTTP request line
            line = rng.choice(HTTP) + (" " + line if rng.random() < 0.3 else "")
        elif op == 6:
            line = line * rng.randint(2, 40)
        elif op == 7:
            line = "world: wait 1" + "0" * rng.choice([10, 400, 4400, 5000])
        else:
            line = rng.choice(["", "   ", "#", "# comment", "&", "-", ":", "world:",
                               "world: ", '"": where', '"world": time'])
    data = line.encode("utf-8", "surrogatepass")
    if rng.random() < 0.05:
        k = rng.randint(0, len(data))
        data = data[:k] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 4))) + data[k:]
    return data.replace(b"\n", b" ").replace(b"\r", b" ")


hypothesis_lines = st.one_of(
    st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.binary(max_size=200),
    st.builds(lambda c, s: (c + s).encode("utf-8", "surrogatepass"),
              st.sampled_from(VALID + HTTP), st.text(max_size=40)),
    st.builds(lambda c, x: c.replace("0.", x, 1).encode(), st.sampled_from(VALID),
              st.sampled_from(EXTREMES)),
    st.integers(-(10 ** 400), 10 ** 400).map(lambda n: f"world: wait {n}".encode()),
    st.floats().map(lambda x: f"ball: push (0, {x!r}, 0) seconds={x!r}".encode()),
    st.dictionaries(st.text(max_size=8), st.one_of(st.none(), st.booleans(), st.integers(),
                                                   st.floats(), st.text(max_size=20)),
                    max_size=4).map(lambda d: json.dumps({"target": "ball", "command": "push",
                                                          "args": d}).encode()),
).map(lambda b: b.replace(b"\n", b" ").replace(b"\r", b" "))


def _rss(pid: int) -> float:
    """Resident memory of process ``pid``, MB."""
    with open(f"/proc/{pid}/status") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return kb / 1024


class Fuzzer:
    """Sends lines to the server, each batch followed by a marker it waits for; checks that
    every reply line is well formed and leaks no Python."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock: socket.socket | None = None
        self.lines = 0
        self.replies = 0
        self.closed_by_server = 0

    def _connect(self) -> None:
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        self.buffer = b""

    def batch(self, lines: list[bytes]) -> None:
        """Send ``lines`` and wait for the replies; an HTTP request line goes on a connection
        of its own, which must get one error line and be closed."""
        self._http([line for line in lines if HTTP_REQUEST.match(line)])
        if self.sock is not None:
            self.sock.close()  # a fresh client: earlier batches' endless waits count as pending
        self._connect()
        self.lines += len(lines)
        self.sock.sendall(b"".join(line + b"\n" for line in lines if not HTTP_REQUEST.match(line))
                          + b"#999999999 world: time\n")
        self._replies()

    def _http(self, lines: list[bytes]) -> None:
        socks = [socket.create_connection(("127.0.0.1", self.port), timeout=30) for _ in lines]
        for sock, line in zip(socks, lines, strict=True):
            sock.sendall(line + b"\r\nHost: x\r\n\r\nworld: spawn ball http position=(0,1,0)\n")
        for sock in socks:
            reply = b""
            with contextlib.suppress(ConnectionResetError):
                while data := sock.recv(4096):
                    reply += data
            sock.close()
            assert reply.startswith(b"error this is twig's line protocol, not HTTP"), reply
            assert reply.count(b"\n") == 1, reply      # one line, then closed
            self.closed_by_server += 1

    def _replies(self) -> None:
        while True:
            end = self.buffer.find(b"\n")
            if end < 0:
                data = self.sock.recv(1 << 16)
                if not data:
                    raise EOFError
                self.buffer += data
                continue
            raw, self.buffer = self.buffer[:end], self.buffer[end + 1:]
            self.replies += 1
            line = raw.decode("utf-8")                  # every reply is valid UTF-8
            assert not LEAK.search(QUOTED.sub("", line)), line
            if line.startswith("{"):
                reply = json.loads(line)
                assert reply["reply"] in KINDS, line
                if reply.get("id") == 999999999 and reply["reply"] != "ok":
                    return
            else:
                assert line.split(" ", 1)[0] in KINDS, line
                if line.split(" ", 2)[1:2] == ["999999999"] and not line.startswith("ok"):
                    return


WELL_BEHAVED = """
import json, socket, sys, threading, time
sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30)
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
walls, buffer, k, error = [], b"", 0, None
try:
    while not stop.is_set():
        k += 1
        start = time.monotonic()
        sock.sendall(b"#%d world: time\\n" % k)
        while True:
            while b"\\n" not in buffer:
                buffer += sock.recv(4096)
            line, buffer = buffer.split(b"\\n", 1)
            if line.startswith(b"value %d " % k):
                break
            assert line.startswith(b"event "), line     # others' failures, told to everyone
        walls.append(time.monotonic() - start)
        time.sleep(0.05)
except BaseException as e:
    error = repr(e)
print(json.dumps({"walls": walls, "error": error}))
"""
"""The well-behaved client, a process of its own (as another user's client would be): asks
``world: time`` every 50 ms and times each round trip, wall clock, until its stdin closes."""


def _well_behaved_result(proc: subprocess.Popen) -> dict:
    out, _ = proc.communicate("", timeout=30)
    return json.loads(out)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    scene = tmp_path_factory.mktemp("fuzz") / "fuzz.toml"
    scene.write_text(SCENE)
    proc = start([sys.executable, "-m", "twig", "serve", str(scene), "--port", "0",
                  "--ws-port", "-1"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                 text=True)
    port = int(re.search(r"port (\d+)", proc.stdout.readline()).group(1))
    fuzzer = Fuzzer(port)
    fuzzer.batch([b"world: time"] * 50)                # warm: every path compiled and loaded
    state = {"rss0": _rss(proc.pid), "t0": time.monotonic()}
    good = start([sys.executable, "-c", WELL_BEHAVED, str(port)],
                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                 text=True)
    yield proc, fuzzer, good, state
    if good.poll() is None:
        good.kill()
    proc.terminate()
    proc.wait(20)


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck),
          phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(lines=st.lists(hypothesis_lines, min_size=200, max_size=200))
def test_a_hypothesis_fuzz(served, lines):
    _, fuzzer, good, _ = served
    fuzzer.batch(lines)
    assert good.poll() is None                          # still asking


def test_b_seeded_mutations_then_everyone_was_answered_in_time_and_memory_held(served):
    proc, fuzzer, good, state = served
    rng = random.Random(34)
    while fuzzer.lines < 20_500:
        fuzzer.batch([mutate(rng) for _ in range(250)])
        assert good.poll() is None                      # still asking
    wall = time.monotonic() - state["t0"]
    grown = _rss(proc.pid) - state["rss0"]
    result = _well_behaved_result(good)
    walls = sorted(result["walls"])
    print(f"{fuzzer.lines} lines, {fuzzer.replies} replies, {fuzzer.closed_by_server} "
          f"HTTP closes in {wall:.1f} s; well-behaved client: {len(walls)} round trips, "
          f"median {walls[len(walls) // 2] * 1000:.0f} ms, slowest "
          f"{', '.join(f'{w * 1000:.0f}' for w in walls[-3:])} ms; memory grew {grown:.1f} MB")
    assert result["error"] is None, result["error"]
    assert proc.poll() is None                          # the server is still up
    assert fuzzer.replies > fuzzer.lines / 2            # the lines did run
    assert fuzzer.lines >= 20_000 and wall < 60
    assert len(walls) > 100 and walls[-1] < 1.0
    assert grown < 50
