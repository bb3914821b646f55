"""Issue #11 acceptance: 40 short jobs on 2 local workers, bit for bit the same as one
process and as Ray; a re-run skips finished jobs; broken jobs are recorded, the rest finish."""

import os
from pathlib import Path

import pytest
from batch_helpers import assert_same_file, manifest_rows, write_spec

from twig.batch import load_spec, run_batch, run_job
from twig.batch.manifest import Manifest

SPEC_40 = """
[batch]
description = "40 short jobs of small scenes"
seconds = 0.5
outputs = ["npz"]

[[jobs]]
name = "small"
scene = ["tetra", "chain", "stick-in-box", "marionette", "weight"]
seeds = {start = 0, count = 4}

[[jobs]]
name = "heights"
scene = "walk"
seeds = [0, 1]
[jobs.vary]
walker.height = {min = 1.4, max = 1.8, steps = 5}

[[jobs]]
name = "dolls"
scene = "demo"
sampling = "random"
samples = 10
sample_seed = 3
[jobs.vary]
adult.height = {min = 1.5, max = 1.9}
adult.position = {min = [-0.5, 0.8, 1.5], max = [0.5, 1.2, 2.5]}
"""


@pytest.fixture(scope="module")
def batch40(tmp_path_factory):
    """The 40-job spec run once on 2 local workers: (spec, output folder, report)."""
    folder = tmp_path_factory.mktemp("batch40")
    spec = load_spec(write_spec(folder, SPEC_40))
    report = run_batch(spec, folder / "out", workers=2)
    return spec, folder / "out", report


def assert_same_outputs(rows_a, out_a: Path, rows_b, out_b: Path) -> None:
    by_job = {row["job"]: row for row in rows_b}
    for row in rows_a:
        other = by_job[row["job"]]
        assert row["state_hash"] == other["state_hash"]
        assert row["files"] == other["files"]
        assert row["metrics"] == other["metrics"]
        for paths in row["files"].values():
            for path in paths:
                assert_same_file(out_a / path, out_b / path)


def test_forty_jobs_on_two_workers_match_a_single_process_bit_for_bit(batch40):
    spec, out, report = batch40
    assert len(spec.jobs) == 40
    assert (report.ok, report.failed, report.skipped, report.interrupted) == (40, 0, 0, False)
    rows = manifest_rows(out)
    assert [row["job"] for row in rows] == [job.id for job in spec.jobs]
    assert len({row["worker"] for row in rows}) == 2
    for job, row in zip(spec.jobs, rows, strict=True):
        assert row["status"] == "ok" and row["error"] is None
        assert row["files"] == {"npz": [f"{job.id}/motion.npz"]}
        assert row["ticks"] == 30 and row["params"] == job.params
        single = run_job(job)
        assert single.row["state_hash"] == row["state_hash"]
        assert single.row["metrics"] == row["metrics"]
        assert set(single.files) == {"motion.npz"}
        reference = out.parent / "single" / job.id / "motion.npz"
        reference.parent.mkdir(parents=True)
        reference.write_bytes(single.files["motion.npz"])
        assert_same_file(out / job.id / "motion.npz", reference)
    assert not (out / ".partial").exists()


def test_seeds_and_scene_fields_reach_the_worlds(batch40):
    spec, _out, _ = batch40
    rows = {row["job"]: row for row in manifest_rows(_out)}
    heights = [j for j in spec.jobs if j.group == "heights"]
    assert len({rows[j.id]["state_hash"] for j in heights}) == 5  # seeds 0, 1: same walk
    dolls = [rows[j.id] for j in spec.jobs if j.group == "dolls"]
    assert len({row["state_hash"] for row in dolls}) == 10
    small = [rows[j.id] for j in spec.jobs if j.group == "small"]
    assert [row["seed"] for row in small[:4]] == [0, 1, 2, 3]


def test_a_rerun_skips_every_finished_job(batch40):
    spec, out, _ = batch40
    before = (out / "manifest.jsonl").read_bytes()
    report = run_batch(spec, out, workers=2)
    assert (report.skipped, report.ok, report.failed) == (40, 0, 0)
    assert (out / "manifest.jsonl").read_bytes() == before


def test_ray_gives_the_same_outputs(batch40, tmp_path):
    try:
        import ray
    except ImportError:  # an optional extra; .ci/run installs it
        if os.environ.get("CI") == "true":
            pytest.fail("Ray is missing; .ci/run must install twig[ray]")
        pytest.skip("Ray is an optional extra: pip install 'twig[ray]'")
    spec, out, _ = batch40
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        report = run_batch(spec, tmp_path / "ray", ray="local")
    finally:
        ray.shutdown()
    assert (report.ok, report.failed) == (40, 0)
    assert_same_outputs(manifest_rows(tmp_path / "ray"), tmp_path / "ray",
                        manifest_rows(out), out)


def test_broken_jobs_are_recorded_and_the_others_finish(tmp_path):
    (tmp_path / "broken.toml").write_text("[[object]\ntype = 'ball'\n")
    spec = load_spec(write_spec(tmp_path, """
[batch]
seconds = 0.5
[[jobs]]
name = "broken-file"
scene = "broken.toml"
[[jobs]]
name = "bad-value"
scene = "walk"
[jobs.vary]
walker.height = ["tall", 1.6]
[[jobs]]
name = "no-such-object"
scene = "walk"
[jobs.vary]
runner.height = [1.6]
"""))
    report = run_batch(spec, tmp_path / "out", workers=1)
    assert (report.ok, report.failed) == (1, 3)
    rows = {row["group"] + str(row["index"]): row for row in manifest_rows(tmp_path / "out")}
    assert rows["broken-file0"]["status"] == "failed"
    assert "broken.toml: malformed TOML" in rows["broken-file0"]["error"]
    assert rows["bad-value0"]["error"].endswith(
        "walk.toml: [[object]] #1 (humanoid): field 'height': expected a number, got 'tall'")
    assert rows["bad-value1"]["status"] == "ok"
    assert (tmp_path / "out" / rows["bad-value1"]["files"]["npz"][0]).is_file()
    assert "the scene has no object named 'runner' (objects: walker" in \
        rows["no-such-object0"]["error"]
    assert all(row["files"] == {} for row in rows.values() if row["status"] == "failed")
    manifest = Manifest(tmp_path / "out")
    assert [manifest.finished(j.id) for j in spec.jobs] == [False, False, True, False]
