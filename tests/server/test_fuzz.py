"""Hostile and broken input: always an error line, the server stays up, the world unchanged."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

LIMIT = 1024  # the paused_server fixture's line limit

hostile = st.sampled_from([
    "__class__: x", "ball: __class__", "world: __globals__", "ball: _private",
    "world: eval \"__import__('os').system('true')\"", "__import__('os').system('true')",
    "ball: where.__globals__", "ball.__class__: where", "world: spawn ball ball",
    "world: spawn nonsense x", "world: remove __class__", "ball: push \"up\"",
    "ball: push (1, 2)", "world: wait abc", "world: wait -1", "ball: where 5 6",
    "kid: move-node nose (0, 1, 0)", "world: subscribe everything", "world: json maybe",
    "world: speed 0", "world: speed 1e308", "world: step 0", "ball: push (1e308, 1e308, 1e308)",
    "ghost: where", "kid: where node=__dict__", "world: state nodes=3",
    '{"target": "__class__", "command": "where"}', '{"target": "ball", "command": "__init__"}',
    '{"target": "ball", "command": "push", "args": {"vector": NaN}}', '{"id": [1]}', "[]",
    '{"target": "world", "command": "spawn", "args": {"type": "ball", "name": "ball"}}',
])
garbage = st.one_of(
    st.binary(max_size=300).map(lambda b: b.replace(b"\n", b" ")),
    st.text(max_size=300).map(lambda s: s.replace("\n", " ").encode("utf-8", "surrogatepass")),
    hostile.map(str.encode),
    st.builds(lambda k: b"x" * k, st.integers(LIMIT + 1, 20 * LIMIT)),      # huge lines
    st.binary(min_size=1, max_size=40).map(lambda b: b"\xff" + b.replace(b"\n", b"")),
)


@settings(max_examples=150)
@given(payload=garbage)
def test_garbage_gets_an_error_line_and_changes_nothing(paused_server, payload):
    served, t = paused_server
    before = served.server.command_handler("world: hash")
    t.send(b"#5 " + payload.rstrip(b"\r\0"))
    reply = t.line()
    assert reply.startswith("error 5 "), reply
    t.send("#6 world: hash")
    assert t.line() == f"value 6 {json.dumps(json.loads(before[len('value '):]))}"
    assert served.server.command_handler("world: objects").startswith('value [{"name":"ball"')
