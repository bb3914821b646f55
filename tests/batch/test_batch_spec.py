"""Batch spec files: every mistake named by file, table and field; sweeps expand as written."""

import math

import pytest
from batch_helpers import write_spec
from hypothesis import given
from hypothesis import strategies as st

from twig.batch import BatchError, load_spec
from twig.batch.sweep import job_id


def spec(tmp_path, text):
    return load_spec(write_spec(tmp_path, text))


@pytest.mark.parametrize(("text", "message"), [
    ("[[jobs]]\nscene = 'tetra'\nsecs = 1", "[[jobs]] #1: unknown field 'secs'"),
    ("[[jobs]]\nseeds = [1]", "[[jobs]] #1: missing field 'scene'"),
    ("[[jobs]]\nscene = 'nope'", "[[jobs]] #1: field 'scene': unknown scene 'nope'"),
    ("[[jobs]]\nscene = 'missing.toml'", "field 'scene': scene file"),
    ("[[jobs]]\nscene = 'tetra'\nscript = 'x.twig'", "field 'script': script"),
    ("[[jobs]]\nscene = 'tetra'\nseeds = 1.5", "field 'seeds': expected an integer"),
    ("[[jobs]]\nscene = 'tetra'\nseeds = {start = 0}", "field 'seeds': expected {start"),
    ("[[jobs]]\nscene = 'tetra'\nseconds = -1", "field 'seconds': expected a positive"),
    ("[[jobs]]\nscene = 'tetra'\noutputs = ['avi']", "field 'outputs': expected a list"),
    ("[[jobs]]\nscene = 'tetra'\nuntil = 'end'", "field 'until': expected one of"),
    ("[[jobs]]\nscene = 'tetra'\nfps = 500", "field 'fps': expected an integer from 1"),
    ("[[jobs]]\nscene = 'tetra'\nvideo_size = 'big'", "field 'video_size': expected"),
    ("[[jobs]]\nscene = 'tetra'\nsamples = 3", "field 'samples' goes with sampling"),
    ("[[jobs]]\nscene = 'tetra'\nsampling = 'random'", "field 'samples' goes with"),
    ("[[jobs]]\nscene = 'tetra'\nuntil = 'script'\noutputs = ['mp4']",
     "cannot go with until = \"script\""),
    ("[[jobs]]\nscene = 'walk'\n[jobs.vary]\nheight = [1.5]",
     "'height': expected '<object name>.<field>'"),
    ("[[jobs]]\nscene = 'walk'\n[jobs.vary]\nworld.seed = [1, 2]", "with the field 'seeds'"),
    ("[[jobs]]\nscene = 'walk'\n[jobs.vary]\nwalker.height = 1.5",
     "'walker.height': expected a non-empty list of values or a range"),
    ("[[jobs]]\nscene = 'walk'\n[jobs.vary]\nwalker.height = {min = 1, max = 2}",
     "'walker.height': a grid range needs 'steps'"),
    ("[[jobs]]\nscene = 'walk'\n[jobs.vary]\nwalker.height = {min = 2.0, max = 1.0, steps = 2}",
     "'min' must not exceed 'max'"),
    ("[[jobs]]\nscene = 'walk'\n[jobs.vary]\nwalker.position = {min = [0, 0], max = 1, "
     "steps = 2}", "must both be numbers or both vectors"),
    ("[[jobs]]\nscene = 'walk'\n[jobs.vary]\nwalker.resolution = {min = 1, max = 4, "
     "steps = 3}", "do not land on integers"),
    ("[batch]\nscene = 'walk'\n[[jobs]]\nscene = 'walk'", "[batch]: unknown field 'scene'"),
    ("[[jobs]]\nname = 'a'\nscene = 'tetra'\n[[jobs]]\nname = 'a'\nscene = 'chain'",
     "[[jobs]] #2: field 'name': 'a' names an earlier"),
    ("[run]\n[[jobs]]\nscene = 'tetra'", "unknown table [run]"),
    ("[batch]\nseconds = 1", "expected at least one [[jobs]] table"),
    ("[[jobs]\nscene = 'tetra'", "malformed TOML"),
])
def test_errors_name_file_table_and_field(tmp_path, text, message):
    with pytest.raises(BatchError) as error:
        spec(tmp_path, text)
    assert message in str(error.value)
    assert str(tmp_path / "spec.toml") in str(error.value) or "unknown scene" in message


def test_unknown_builtin_spec_lists_the_known_ones():
    with pytest.raises(BatchError, match=r"built-in specs: .*sweep"):
        load_spec("no-such-spec")


def test_grid_crosses_scenes_seconds_vary_and_seeds_seeds_fastest(tmp_path):
    s = spec(tmp_path, """
[batch]
outputs = ["npz", "bvh"]
[[jobs]]
name = "grid"
scene = ["walk", "hug"]
seconds = [0.5, 1]
seeds = {start = 3, count = 2}
[jobs.vary]
walker.height = {min = 1.5, max = 1.9, steps = 3}
"world.iterations" = [2, 4]
""")
    assert len(s.jobs) == 2 * 2 * 3 * 2 * 2
    first, second = s.jobs[0].params, s.jobs[1].params
    assert (first["seed"], second["seed"]) == (3, 4)
    assert first["overrides"] == {"walker.height": 1.5, "world.iterations": 2}
    assert first["seconds"] == 0.5 and isinstance(first["seconds"], float)
    assert s.jobs[-1].params["scene"] == "hug"
    assert [j.params["overrides"]["walker.height"] for j in s.jobs[:24:4]] == \
        [1.5, 1.7, 1.9, 1.5, 1.7, 1.9]
    assert [j.params["seconds"] for j in s.jobs[:24:12]] == [0.5, 1.0]
    assert first["outputs"] == ["bvh", "npz"]
    assert [j.index for j in s.jobs] == list(range(len(s.jobs)))


def test_a_job_id_is_the_hash_of_what_it_runs(tmp_path):
    text = "[[jobs]]\nscene = 'tetra'\nseeds = [0, 1, 0]\n"
    a, b = spec(tmp_path, text), spec(tmp_path / "again", text)
    assert [j.id for j in a.jobs] == [j.id for j in b.jobs]
    assert len(a.jobs) == 2 and a.duplicates == 1
    assert all(j.id.startswith("tetra-") and j.id == job_id(j.params) for j in a.jobs)
    moved = spec(tmp_path / "elsewhere", text.replace("tetra", "chain"))
    assert {j.id for j in moved.jobs}.isdisjoint(j.id for j in a.jobs)


def test_editing_a_scene_file_makes_new_jobs(tmp_path):
    scene = tmp_path / "mine.toml"
    scene.write_text("[[object]]\ntype = 'tetrahedron'\nname = 't'\nposition = [0, 1, 0]\n")
    text = "[[jobs]]\nscene = 'mine.toml'\n"
    before = spec(tmp_path, text).jobs[0]
    assert before.scene == str(scene.resolve()) and before.id.startswith("mine-")
    scene.write_text(scene.read_text().replace("[0, 1, 0]", "[0, 2, 0]"))
    assert spec(tmp_path, text).jobs[0].id != before.id


def test_random_sampling_is_reproducible_and_inside_its_ranges(tmp_path):
    text = """
[[jobs]]
scene = "walk"
sampling = "random"
samples = 25
sample_seed = {seed}
[jobs.vary]
walker.height = {{min = 1.2, max = 1.8}}
walker.position = {{min = [-1.0, 0.0, -2.0], max = [1.0, 0.0, 2.0]}}
world.iterations = {{min = 2, max = 6}}
walker.preset = ["adult", "child"]
"""
    a = spec(tmp_path, text.format(seed=1)).jobs
    b = spec(tmp_path / "b", text.format(seed=1)).jobs
    c = spec(tmp_path / "c", text.format(seed=2)).jobs
    assert [j.params for j in a] == [j.params for j in b]
    assert [j.params for j in a] != [j.params for j in c]
    values = [j.params["overrides"] for j in a]
    assert all(1.2 <= v["walker.height"] <= 1.8 for v in values)
    assert all(-1 <= v["walker.position"][0] <= 1 and v["walker.position"][1] == 0.0
               and -2 <= v["walker.position"][2] <= 2 for v in values)
    assert {v["world.iterations"] for v in values} <= {2, 3, 4, 5, 6}
    assert all(isinstance(v["world.iterations"], int) for v in values)
    assert {v["walker.preset"] for v in values} == {"adult", "child"}


def test_nested_and_quoted_vary_keys_are_the_same(tmp_path):
    nested = spec(tmp_path, "[[jobs]]\nscene = 'walk'\n[jobs.vary]\nwalker.height = [1.5]\n")
    quoted = spec(tmp_path / "q", "[[jobs]]\nscene = 'walk'\n[jobs.vary]\n"
                                  "\"walker.height\" = [1.5]\n")
    assert nested.jobs[0].id == quoted.jobs[0].id


def test_batch_defaults_apply_to_every_jobs_table(tmp_path):
    s = spec(tmp_path, """
[batch]
description = "defaults"
seconds = 2
outputs = ["mp4"]
video_size = "320x180"
fps = 12
[[jobs]]
scene = "tetra"
[[jobs]]
scene = "chain"
seconds = 1
outputs = ["npz"]
""")
    assert s.description == "defaults"
    assert s.jobs[0].params["seconds"] == 2.0
    assert s.jobs[0].params["video"] == {"size": [320, 180], "fps": 12}
    assert s.jobs[1].params["seconds"] == 1.0 and s.jobs[1].params["video"] is None


@given(st.lists(st.integers(1, 4), min_size=0, max_size=3), st.integers(1, 3),
       st.integers(1, 3))
def test_grid_size_is_the_product_of_its_axes(tmp_path_factory, axes, n_seconds, n_seeds):
    vary = "\n".join(f"o{k}.f = {list(range(n))}" for k, n in enumerate(axes))
    text = (f"[[jobs]]\nscene = 'tetra'\nseconds = {[0.5 + k for k in range(n_seconds)]}\n"
            f"seeds = {{start = 0, count = {n_seeds}}}\n[jobs.vary]\n{vary}\n")
    s = load_spec(write_spec(tmp_path_factory.mktemp("grid"), text))
    assert len(s.jobs) == math.prod(axes) * n_seconds * n_seeds
    assert len({j.id for j in s.jobs}) == len(s.jobs)
