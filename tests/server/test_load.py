"""Many clients at once: every command gets exactly one final reply, the tick rate holds, and a
client that stops reading is dropped without stalling anyone."""

import asyncio
import time
from collections import Counter

from twig.client import AsyncClient
from twig.server import Limits

CLIENTS = 50
COMMANDS = 200
WINDOW = 20       # requests each client keeps in flight


async def _drive(port: int, k: int) -> Counter:
    """Send COMMANDS requests (queries, instants, actions, errors), WINDOW at a time; count
    final replies per request id."""
    client = await AsyncClient.connect(port=port)
    lines = ["world: time", "ball: where", "world: wait 0.05", "ball: nope",
             f"kid{'' if k % 2 else '2'}: velocity head"]
    finals: Counter = Counter()
    oks: Counter = Counter()
    ids = [client.send(lines[i % len(lines)]) for i in range(WINDOW)]
    sent = WINDOW
    while ids:
        rid = ids.pop(0)
        reply = await client.reply(rid, timeout=30)
        if reply["reply"] == "ok":
            oks[rid] += 1
            reply = await client.reply(rid, timeout=30)
        finals[(rid, reply["reply"])] += 1
        if sent < COMMANDS:
            ids.append(client.send(lines[sent % len(lines)]))
            sent += 1
    await client.close()
    assert all(n == 1 for n in oks.values())
    return finals


def test_fifty_clients_two_hundred_commands_each(start_server):
    served = start_server()
    clock = served.server.clock

    async def main():
        return await asyncio.gather(*(_drive(served.port, k) for k in range(CLIENTS)))

    ticks0, t0 = clock.ticks_run, time.monotonic()
    results = asyncio.run(main())
    wall = time.monotonic() - t0
    ticks = clock.ticks_run - ticks0
    for finals in results:
        assert len(finals) == COMMANDS                          # every request answered
        assert all(n == 1 for n in finals.values())             # exactly once
        kinds = Counter(kind for _, kind in finals)
        assert kinds == {"value": 120, "done": 40, "error": 40}
    assert served.server.commands_run >= CLIENTS * COMMANDS
    assert ticks >= 0.85 * wall * 60, f"{ticks} ticks in {wall:.2f} s"


def test_a_client_that_stops_reading_is_dropped_and_others_go_on(start_server, telnet):
    served = start_server(limits=Limits(max_buffer=32 * 1024))
    slow = telnet(served.port, rcvbuf=4096)
    other = telnet(served.port)
    request = b"".join(b"#%d world: state\r\n" % i for i in range(200))
    ticks0, t0 = served.server.clock.ticks_run, time.monotonic()
    dropped = False
    while time.monotonic() - t0 < 15:
        try:
            slow.sock.sendall(request)
        except OSError:
            dropped = True
            break
        if len(served.server.connections) == 1:
            dropped = True
            break
        time.sleep(0.02)
    assert dropped
    other.send("#1 world: time")
    assert other.line().startswith("value 1 ")
    time.sleep(max(0.0, 1.0 - (time.monotonic() - t0)))  # a rate over a second, not a tick
    wall = time.monotonic() - t0
    assert served.server.clock.ticks_run - ticks0 >= 0.85 * wall * 60
