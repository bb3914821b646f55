"""Issue #34's file reproducers: every malformed or oversized scene, script, batch spec and mesh
is one clear line naming the file, table and field, before anything large is allocated."""

import subprocess
import sys
import time
import tracemalloc

import pytest

from twig.batch import BatchError, load_spec
from twig.cli import main
from twig.errors import ParseError, SceneError
from twig.scenes import load_scene
from twig.script.syntax import read_script

MB = 1 << 20


def _refused(load, error, *args):
    """Run ``load(*args)``: it must raise ``error`` quickly, allocating little; the message."""
    tracemalloc.start()
    start = time.monotonic()
    try:
        with pytest.raises(error) as e:
            load(*args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - start < 10
    assert peak < 64 * MB, f"{peak / MB:.0f} MB"
    message = str(e.value)
    assert "\n" not in message and "Traceback" not in message
    return message


@pytest.mark.parametrize(("text", "expected"), [
    ("[world]\nseed = -1", "[world]: field 'seed': expected an integer from 0 to 2**63 - 1"),
    ("[world]\nseed = 9223372036854775808", "[world]: field 'seed': expected an integer"),
    ("[world]\niterations = 100000000",
     "[world]: field 'iterations': expected an integer from 1 to 100, got 100000000"),
    ("a = " + "[" * 5000 + "]" * 5000, "malformed TOML: arrays or tables nested too deeply"),
    ("[[object]]\ntype = 'cloth'\nname = 'c'\nposition = [0, 2, 0]\nresolution = 3000",
     "[[object]] #1 (cloth 'c'): c: resolution must be an integer from 2 to 256, got 3000"),
    ("[[object]]\ntype = 'rope'\nname = 'r'\nstart = [0, 2, 0]\nsegments = 10000000",
     "[[object]] #1 (rope 'r'): r: segments must be an integer from 1 to 10000"),
    ("[[object]]\ntype = 'rope'\nname = 'r'\nstart = [0, 2, 0]\nsegments = 1e7",
     "[[object]] #1 (rope): field 'segments': expected an integer, got 10000000.0"),
    ("[[object]]\ntype = 'ball'\nname = 'world'\nposition = [0, 1, 0]",
     "[[object]] #1 (ball): field 'name': 'world' cannot name an object"),
    ("[[object]]\ntype = 'ball'\nname = \"a\\u0007b\"\nposition = [0, 1, 0]",
     "[[object]] #1 (ball): field 'name': expected printable characters, got '\\x07'"),
], ids=["seed", "seed-big", "iterations", "nested", "cloth", "rope", "rope-float", "reserved",
        "control"])
def test_scene_files(tmp_path, text, expected):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    message = _refused(load_scene, SceneError, path)
    assert message.startswith(f"{path}: ") and expected in message, message


@pytest.mark.parametrize(("text", "expected"), [
    ("seeds = {start = 0, count = 1000000000}", "field 'seeds': expected {start = integer "
     "from 0, count = integer from 1 to 100000}"),
    ("seeds = -3", "field 'seeds': expected an integer seed from 0"),
    ("[jobs.vary]\n'ball.radius' = {min = 0.1, max = 0.2, steps = 1000000}\n"
     "'ball.mass' = {min = 0.1, max = 0.2, steps = 1000000}",
     "'ball.radius': field 'steps': expected an integer from 1 to 100000"),
    ("[jobs.vary]\n'ball.radius' = {min = 0.1, max = 0.2, steps = 1000}\n"
     "'ball.mass' = {min = 0.1, max = 0.2, steps = 1000}",
     "[[jobs]] #1: expands to 1000000 jobs"),
    ("sampling = 'random'\nsamples = 1000000000",
     "field 'samples': expected an integer from 1 to 100000"),
    ("x = " + "{a = " * 3000 + "1" + "}" * 3000, "nested too deeply"),
], ids=["seeds", "negative-seed", "grid-steps", "grid", "samples", "nested"])
def test_batch_specs(tmp_path, capsys, text, expected):
    path = tmp_path / "spec.toml"
    path.write_text(f"[[jobs]]\nscene = 'tetra'\n{text}\n")
    message = _refused(load_spec, BatchError, path)
    assert message.startswith(f"{path}: ") and expected in message, message
    assert main(["batch", str(path), "--list"]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err


@pytest.mark.parametrize(("line", "expected"), [
    ("world: wait 1" + "0" * 4400, "a number written in at most 40 characters"),
    ("ball: push (0, 0, 0) seconds=1e308", "a number from -1e+09 to 1e+09"),
    ('world: spawn ball "\\ud800" position=(0, 1, 0)', "a printable character"),
])
def test_scripts(tmp_path, line, expected):
    path = tmp_path / "bad.twig"
    path.write_text(f"world: wait 1\n{line}\n")
    message = _refused(read_script, ParseError, path)
    assert message.startswith(f"{path}:2:") and expected in message, message


def test_a_flat_mesh_is_thickened_to_a_centimetre_without_networkx(tmp_path):
    """docs/scenes.md: a flat mesh (a sign) collides as a box 1 cm thick. Run where networkx
    cannot be imported, as on an install without it."""
    (tmp_path / "sign.obj").write_text("v 0 0 0\nv 1 0 0\nv 1 0 0.5\nv 0 0 0.5\n"
                                       "f 1 2 3\nf 1 3 4\n")
    (tmp_path / "sign.toml").write_text("[[object]]\ntype = 'box_model'\nname = 'sign'\n"
                                        "position = [0, 1, 0]\npath = 'sign.obj'\n")
    code = ("import sys; sys.modules['networkx'] = None\n"
            "import numpy as np, twig\n"
            f"w = twig.load_scene({str(tmp_path / 'sign.toml')!r})\n"
            "v = w.volumes\n"
            "row = np.flatnonzero(v['body'] == w.body('sign').id)[0]\n"
            "half = v['coef'][row][1:] @ w.node_pos[v['nodes'][row]]\n"
            "print(*sorted(np.linalg.norm(half, axis=1).round(6)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert [float(h) for h in done.stdout.split()] == [0.005, 0.25, 0.5]  # half extents, m
