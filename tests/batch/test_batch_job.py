"""One job in this process: every output kind, scripts, durations, and what it measures."""

import json
import os
from collections import Counter

import numpy as np
import pytest
from batch_helpers import write_spec

from twig.batch import load_spec, plant_slides, run_job
from twig.batch.metrics import foot_skate


def only_job(tmp_path, text):
    jobs = load_spec(write_spec(tmp_path, text)).jobs
    assert len(jobs) == 1
    return jobs[0]


def need_egl():
    """Video needs an EGL context: CI installs one (fail there without it), skip elsewhere."""
    from twig.view.render import RenderError, create_context

    try:
        create_context().release()
    except RenderError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{e}; .ci/run must install EGL")
        pytest.skip(str(e))


def test_every_output_kind_of_a_walk(tmp_path):
    import av
    import bvhio
    import pygltflib

    need_egl()
    job = only_job(tmp_path, """
[[jobs]]
scene = "walk"
seconds = 3
outputs = ["npz", "bvh", "glb", "mp4", "trace"]
video_size = "160x96"
fps = 10
""")
    result = run_job(job)
    assert result.row["status"] == "ok", result.row["error"]
    assert sorted(result.files) == ["motion.bvh", "motion.npz", "scene.glb", "trace.jsonl",
                                    "video.mp4"]
    for name, data in result.files.items():
        (tmp_path / name).write_bytes(data)
    with np.load(tmp_path / "motion.npz") as npz:
        assert npz["pos"].shape == (181, 16, 3) and npz["t"][-1] == pytest.approx(3.0)
    assert len(bvhio.readAsHierarchy(str(tmp_path / "motion.bvh")).Keyframes) == 181
    doc = pygltflib.GLTF2().load(str(tmp_path / "scene.glb"))
    assert len(doc.animations) == 1
    with av.open(str(tmp_path / "video.mp4")) as container:
        assert sum(1 for _ in container.decode(video=0)) == 30
    events = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    actions = [(e["name"], e["status"]) for e in events if e["type"] == "action"]
    assert actions[:3] == [("walk-to", "start"), ("walk-to", "done"), ("walk-to", "start")]
    # A scene's script starts with the scene (docs/architecture.md, "The tick").
    assert events[0]["t"] == 0.0 and all(e["agent"] == "walker" for e in events
                                         if e["type"] == "action")
    assert result.row["ticks"] == 180
    assert result.row["scripts"] == [{"of": "scene", "file": "scripts/walk.twig",
                                      "status": "running", "reason": "", "ended_at": None}]
    metrics = result.row["metrics"]
    assert metrics["characters"] == 1 and metrics["steps"]["walker"] >= 4
    assert metrics["foot_plants"] >= 4 and metrics["foot_skate_m"] < 0.02
    assert (metrics["falls"], metrics["down_at_end"]) == (0, [])


def test_the_weight_knocks_its_victim_down_for_good(tmp_path):
    job = only_job(tmp_path, "[[jobs]]\nscene = 'weight'\nseconds = 2\noutputs = []\n")
    result = run_job(job)
    assert result.files == {}
    metrics = result.row["metrics"]
    assert metrics["falls"] == 1 and metrics["fallen"] == metrics["down_at_end"] == ["victim"]


def test_until_script_stops_when_the_scripts_end(tmp_path):
    (tmp_path / "wait.twig").write_text("world: wait 0.7\n")
    (tmp_path / "bad.twig").write_text("world: wait -1\n")
    job = only_job(tmp_path, "[[jobs]]\nscene = 'tetra'\nscript = 'wait.twig'\n"
                             "until = 'script'\noutputs = []\n")
    row = run_job(job).row
    assert row["status"] == "ok" and row["ticks"] == 43  # ends in the tick at t = 0.7 s
    assert row["scripts"] == [{"of": "job", "file": "wait.twig", "status": "finished",
                               "reason": "", "ended_at": pytest.approx(0.7)}]
    job = only_job(tmp_path / "bad", "[[jobs]]\nscene = 'tetra'\nscript = '../bad.twig'\n"
                                     "seconds = 0.5\noutputs = []\n")
    row = run_job(job).row
    assert row["status"] == "ok" and row["ticks"] == 30
    assert row["scripts"][0]["status"] == "failed"
    assert "seconds must be a number >= 0" in row["scripts"][0]["reason"]


def test_until_script_without_a_script_fails_the_job(tmp_path):
    job = only_job(tmp_path, "[[jobs]]\nscene = 'tetra'\nuntil = 'script'\n")
    row = run_job(job).row
    assert row["status"] == "failed"
    assert row["error"] == ("until = \"script\", but neither the job nor its scene has a "
                            "script")


def test_plant_slides_measure_each_plant():
    dt = 1 / 60
    still = np.zeros((20, 3))
    slide = np.zeros((20, 3))
    slide[:, 0] = np.linspace(0.0, 0.01, 20)  # 0.6 cm/s: slow enough to count as planted
    lifted = np.tile([0.0, 0.2, 0.0], (5, 1))
    track = np.concatenate([still, lifted, slide + np.array([1.0, 0.0, 0.0]), lifted])
    slides = plant_slides(track, 0.0, dt)
    assert slides == pytest.approx([0.0, 0.01])
    assert foot_skate(track, 0.0, dt) == (pytest.approx(0.005), 2)
    assert len(plant_slides(track[:1], 0.0, dt)) == 0


def test_playground_behaviour_switches_match_its_trace(tmp_path):
    jobs = load_spec(write_spec(tmp_path, """
[[jobs]]
scene = "playground"
seconds = 10
outputs = ["trace"]
[jobs.vary]
kid.behaviors.play-ball.area = [2.0, 6.0]
""")).jobs
    rows = []
    for job in jobs:
        result = run_job(job)
        assert result.row["status"] == "ok", result.row["error"]
        events = [json.loads(line) for line in result.files["trace.jsonl"].splitlines()]
        switches = Counter(e["agent"] for e in events if e["type"] == "behavior")
        assert switches["kid"] >= 1
        assert result.row["metrics"]["behavior_switches"] == dict(sorted(switches.items()))
        assert result.row["metrics"]["characters"] == 3
        rows.append(result.row)
    assert rows[0]["state_hash"] != rows[1]["state_hash"]


def test_the_example_spec_expands_and_a_job_of_each_table_runs():
    spec = load_spec("sweep")
    assert len(spec.jobs) == 20 and spec.duplicates == 0
    firsts = {job.group: job for job in reversed(spec.jobs)}
    assert list(firsts) == ["dolls", "random-walkers", "walkers"]
    for job in firsts.values():
        result = run_job(job)
        assert result.row["status"] == "ok", result.row["error"]
        expected = {"npz": "motion.npz", "bvh": "motion.bvh", "glb": "scene.glb",
                    "trace": "trace.jsonl"}
        assert sorted(result.files) == sorted(expected[k] for k in job.params["outputs"])
