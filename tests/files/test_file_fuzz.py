"""Every reader turns every malformed input into one line naming the file (hypothesis): scene
files, scripts, batch specs, mesh files and session records. Anything else (a traceback,
another exception) fails the test."""

import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from twig.batch import BatchError, load_spec
from twig.bodies.mesh import add_box_model
from twig.errors import AssetError, ParseError, TwigError
from twig.scenes import load_scene
from twig.script.syntax import read_script
from twig.server import replay
from twig.world import World

SCENE = """[scene]
description = "fuzz"
seconds = 1.0
[world]
seed = 1
iterations = 4
gravity = [0, -9.81, 0]
[[object]]
type = "ball"
name = "ball"
position = [0, 0.5, 0]
radius = 0.1
[[object]]
type = "rope"
name = "rope"
start = [0, 2, 0]
segments = 4
[[object]]
type = "cloth"
name = "cloth"
position = [1, 2, 0]
resolution = 4
"""
SPEC = """[batch]
description = "fuzz"
seconds = 0.5
[[jobs]]
name = "a"
scene = "tetra"
seeds = {start = 0, count = 2}
sampling = "grid"
[jobs.vary]
"tetra.size" = {min = 0.2, max = 0.4, steps = 3}
"""


def _toml(value) -> str:
    """A value written as TOML (strings as JSON: a lone surrogate makes malformed TOML)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") \
            if math.isinf(value) else repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(_toml, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(value) if isinstance(value, str) else str(value)


values = st.recursive(
    st.one_of(st.integers(-(10 ** 30), 10 ** 30), st.floats(), st.booleans(),
              st.text(max_size=12), st.sampled_from([-1, 0, 1, 2, 3000, 10 ** 7, 10 ** 9])),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=8)


@st.composite
def mutated(draw, text: str) -> str:
    """``text`` with one to three lines' values replaced, lines dropped or junk inserted."""
    lines = text.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        k = draw(st.integers(0, len(lines) - 1))
        op = draw(st.integers(0, 3))
        if op == 0 and " = " in lines[k]:
            lines[k] = lines[k].split(" = ", 1)[0] + " = " + _toml(draw(values))
        elif op == 1:
            del lines[k]
        elif op == 2:
            lines.insert(k, draw(st.text(max_size=40)))
        else:
            lines.insert(k, draw(st.sampled_from(["[world]", "[[object]]", "[[jobs]]",
                                                 "[batch]", "[jobs.vary]", "x = 1",
                                                 "a = " + "[" * 3000 + "]" * 3000])))
        if not lines:
            lines = [""]
    return "\n".join(lines) + "\n"


def _one_line(error: Exception, path) -> None:
    message = str(error)
    assert "\n" not in message and "Traceback" not in message, message
    assert message.startswith(str(path)) or str(path) in message, message


FUZZ = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


@FUZZ
@given(text=mutated(SCENE))
def test_scene_files(tmp_path, text):
    path = tmp_path / "fuzz.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        load_scene(path)
    except TwigError as e:
        _one_line(e, path)


@FUZZ
@given(text=st.one_of(st.text(max_size=300),
                      st.lists(st.sampled_from([
                          "world: wait 1", "ball: push (0, 1, 0) seconds=0.2", "- kid: pin l_foot",
                          'world: spawn ball "b" position=(0, 1, 0)', "world: wait 1" + "0" * 50,
                          "ball: push (1e308, 0, 0)", '"\\ud800": where', 'x: say "\\q"',
                          "ball: where &", "kid: walk (1, 2)", "#c", ""]), max_size=8)
                      .map("\n".join)))
def test_scripts(tmp_path, text):
    path = tmp_path / "fuzz.twig"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        read_script(path)
    except ParseError as e:
        _one_line(e, path)


@FUZZ
@given(text=mutated(SPEC))
def test_batch_specs(tmp_path, text):
    path = tmp_path / "spec.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        load_spec(path)
    except BatchError as e:
        _one_line(e, path)


obj_lines = st.lists(st.one_of(
    st.builds(lambda a, b, c: f"v {a!r} {b!r} {c!r}", st.floats(), st.floats(), st.floats()),
    st.builds(lambda a, b, c: f"f {a} {b} {c}", *[st.integers(-3, 9)] * 3),
    st.sampled_from(["v 0 0 0", "v 1 0 0", "v 0 1 0", "v 0 0 1", "f 1 2 3", "f 1 3 4",
                     "f 1 2 4", "vn 0 1 0", "o x", "usemtl m", "mtllib missing.mtl"]),
    st.text(max_size=20)), max_size=12).map("\n".join)


@FUZZ
@given(suffix=st.sampled_from(["obj", "stl", "glb", "gltf"]),
       data=st.one_of(obj_lines.map(lambda t: t.encode("utf-8", "surrogatepass")),
                      st.binary(max_size=300)))
def test_mesh_files(tmp_path, suffix, data):
    path = tmp_path / f"fuzz.{suffix}"
    path.write_bytes(data)
    try:
        add_box_model(World(), "prop", (0, 1, 0), path=path)
    except TwigError as e:
        assert isinstance(e, AssetError), e
        _one_line(e, path)


RECORD = [{"twig": "session", "version": 1, "scene": "tetra", "seed": 0, "tick": 0},
          {"tick": 3, "client": 1, "line": "world: time"},
          {"tick": 5, "client": 2, "request": {"target": "world", "command": "subscribe",
                                               "args": {"types": ["contact"]}}},
          {"end": 8, "hash": "0"}]


@st.composite
def mutated_records(draw) -> str:
    """A short session record with one or two fields' values replaced (ticks stay small, so
    a replay is quick), a record dropped, or junk inserted."""
    records = [dict(r) for r in RECORD]
    for _ in range(draw(st.integers(1, 2))):
        k = draw(st.integers(0, len(records) - 1))
        op = draw(st.integers(0, 2))
        if op == 0 and isinstance(records[k], dict) and records[k]:
            key = draw(st.sampled_from(sorted(records[k])))
            small = key not in ("tick", "end")
            records[k][key] = draw(values.filter(
                lambda v, small=small: small or not isinstance(v, int) or v < 1000))
        elif op == 1 and len(records) > 1:
            del records[k]
        else:
            records.insert(k, draw(st.one_of(values, st.text(max_size=30))))
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n"


@FUZZ
@given(text=mutated_records())
def test_session_records(tmp_path, text):
    path = tmp_path / "session.jsonl"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        replay(path)
    except TwigError as e:
        _one_line(e, path)
