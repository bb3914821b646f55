"""The believability metrics on hand-made tracks, and ``twig check`` end to end on a short run:
its table, JSON, thresholds and exit status."""

import json

import numpy as np
import pytest

from twig.batch.believability import episodes, knee_backwards, link_stretch, node_jump
from twig.batch.check import STRICT, check_jobs, crossed
from twig.batch.job import run_job
from twig.cli import main


def test_a_node_that_leaves_for_one_tick_is_a_jump_on_either_phase_of_the_frames():
    pos = np.zeros((20, 2, 3))
    pos[:, 0, 0] = np.arange(20) * 0.01  # walks 1 cm a tick: 2 cm a 30 fps frame
    pos[7, 1, 1] = 3.0                   # flies 3 m up for one tick (an odd tick)
    assert node_jump(pos, 2) == pytest.approx(3.0)
    pos[7, 1, 1] = 0.0
    assert node_jump(pos, 2) == pytest.approx(0.02)


def test_link_stretch_is_the_worst_link_of_each_frame():
    pos = np.zeros((3, 3, 3))
    pos[:, 1, 0] = 1.0
    pos[:, 2, 0] = (3.0, 3.5, 2.0)
    stretch = link_stretch(pos, np.array([[0, 1], [1, 2]]), np.array([1.0, 2.0]))
    assert stretch == pytest.approx([0.0, 0.25, 0.5])


def test_a_head_bobbing_round_the_line_is_one_fall():
    head = np.array([1.0, 0.9, 0.55, 0.65, 0.55, 0.75, 0.9, 0.5, 0.4])
    assert episodes(head < 0.6, head > 0.7).tolist() == [2, 7]


def leg(knee_forward):
    """One frame of a figure facing +z (l_hip at +x) with the knees ``knee_forward`` m in
    front of the hip-foot line."""
    nodes = {"l_hip": (0.1, 0.9, 0), "r_hip": (-0.1, 0.9, 0), "pelvis": (0, 0.95, 0),
             "neck": (0, 1.5, 0), "l_knee": (0.1, 0.5, knee_forward), "l_foot": (0.1, 0.1, 0),
             "r_knee": (-0.1, 0.5, 0.02), "r_foot": (-0.1, 0.1, 0)}
    names = list(nodes)
    cols = [names.index(n) for n in ("l_hip", "r_hip", "pelvis", "neck", "l_hip", "l_knee",
                                     "l_foot", "r_hip", "r_knee", "r_foot")]
    return np.array([list(nodes.values())], dtype=float), np.array(cols)


def test_a_knee_bent_backwards_past_five_degrees_is_hyperextended():
    for forward, bent in ((0.05, False), (0.0, False), (-0.01, False), (-0.05, True)):
        pos, cols = leg(forward)
        assert knee_backwards(pos, cols).tolist() == [bent], forward


def test_thresholds_have_bounds_and_scenes():
    limits = {"*": {"jump_m": 0.5, "hug_hands_min": 0.8}, "walk": {"foot_slide_cm": 1.0}}
    metrics = {"jump_m": 0.7, "hug_hands_min": None, "foot_slide_cm": 1.5}
    assert crossed("walk", metrics, limits) == ["jump_m=0.7 (max 0.5)",
                                                "foot_slide_cm=1.5 (max 1)"]
    assert crossed("office", {"jump_m": 0.4, "hug_hands_min": 0.5}, limits) == \
        ["hug_hands_min=0.5 (min 0.8)"]
    assert STRICT["kick"] == {"falls_pain": 1}


def test_a_check_job_measures_the_run_and_writes_its_json():
    job = check_jobs(["walk"], [0], 1.0)[0]
    result = run_job(job)
    assert result.row["status"] == "ok", result.row.get("error")
    check = result.row["check"]
    assert json.loads(result.files["check.json"]) == check
    metrics = check["metrics"]
    assert 0.0 < metrics["jump_m"] < 0.2       # walking: a few cm a frame
    assert metrics["falls"] == 0 and metrics["hugs"] == 0
    assert metrics["child_lean_pct"] is None   # no child in the scene
    assert metrics["home_cycles"] is None
    assert metrics["prop_speed_ms"] is None and metrics["prop_t"] is None  # no prop


def test_the_fastest_prop_node_is_named_with_its_time():
    metrics = run_job(check_jobs(["office"], [0], 1.0)[0]).row["check"]["metrics"]
    assert metrics["prop_node"].startswith(metrics["prop"] + "/")
    assert 0.0 < metrics["prop_t"] <= 1.0 + 1e-9 and metrics["prop_speed_ms"] > 0.0


def test_twig_check_exits_1_when_a_threshold_is_crossed(tmp_path, capsys):
    out = tmp_path / "check.json"
    assert main(["check", "walk", "--seeds", "1", "--seconds", "0.5", "--workers", "1",
                 "--json", str(out), "--max-jump", "0.001", "--fail-on",
                 "stretch_max_pct=1000"]) == 1
    runs = json.loads(out.read_text())["runs"]
    assert [(r["scene"], r["seed"], r["status"]) for r in runs] == [("walk", 0, "ok")]
    assert runs[0]["crossed"][0].startswith("jump_m=")
    captured = capsys.readouterr()
    assert "walk seed 0: jump_m=" in captured.err
    assert "twig check: 1 scenes x 1 seeds" in captured.out


def test_twig_check_names_a_bad_threshold(capsys):
    assert main(["check", "walk", "--fail-on", "wobble=3"]) == 2
    assert "unknown metric 'wobble'" in capsys.readouterr().err


def test_twig_check_help_lists_every_threshold(capsys):
    """A metric's help text ending in '%' made argparse fail formatting --help."""
    with pytest.raises(SystemExit) as done:
        main(["check", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "--max-stretch-p99" in out and "--min-home-cycles" in out
