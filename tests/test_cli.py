"""The ``twig`` command as a user runs it."""

import subprocess
import sys

import numpy as np

from twig.cli import main


def test_scenes_lists_the_builtin_scenes(capsys):
    assert main(["scenes"]) == 0
    out = capsys.readouterr().out
    for name in ("stick-in-box", "cloth", "tetra", "chain", "demo"):
        assert name in out


def test_run_prints_a_summary_and_writes_the_recording(tmp_path, capsys):
    npz = tmp_path / "tetra.npz"
    assert main(["run", "tetra", "--seconds", "1", "--seed", "3", "--npz", str(npz)]) == 0
    out = capsys.readouterr().out
    assert "60 ticks" in out and "tetra" in out and "seed 3" in out
    data = np.load(npz)
    assert data["pos"].shape == (61, 4, 3)


def test_bad_scene_is_a_clear_error_with_exit_status_2(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("[[object]]\ntype = 'dragon'\nname = 'x'\n")
    assert main(["run", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("twig: error: ") and "bad.toml" in err and "dragon" in err


def test_python_dash_m_twig_is_the_same_command():
    result = subprocess.run([sys.executable, "-m", "twig", "run", "stick-in-box",
                             "--seconds", "0.5"], capture_output=True, text=True, check=True)
    assert "stick-in-box" in result.stdout


def test_run_exports_bvh_per_humanoid_and_a_gltf_scene(tmp_path, capsys):
    bvh, glb = tmp_path / "demo.bvh", tmp_path / "demo.glb"
    assert main(["run", "demo", "--seconds", "0.5", "--bvh", str(bvh), "--gltf", str(glb)]) == 0
    out = capsys.readouterr().out
    assert "demo_adult.bvh" in out and "demo_child.bvh" in out and "demo.glb" in out
    assert (tmp_path / "demo_child.bvh").read_text().startswith("HIERARCHY\nROOT Hips")
    assert glb.read_bytes()[:4] == b"glTF"
    one = tmp_path / "kid.bvh"
    assert main(["run", "demo", "--seconds", "0.5", "--bvh", str(one),
                 "--bvh-character", "child", "--bvh-fps", "30"]) == 0
    assert "Frames: 16\n" in one.read_text()


def test_export_errors_come_before_the_run(tmp_path, capsys):
    assert main(["run", "tetra", "--bvh", str(tmp_path / "x.bvh")]) == 2
    captured = capsys.readouterr()
    assert "no humanoid" in captured.err and "tetra" in captured.err
    assert "ticks" not in captured.out  # nothing was simulated
    assert main(["run", "demo", "--bvh", str(tmp_path / "x.bvh"), "--bvh-character", "kid"]) == 2
    assert "'kid'" in capsys.readouterr().err
    assert main(["run", "demo", "--gltf", str(tmp_path / "missing" / "x.glb")]) == 2
    assert "missing" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_twig_script_writes_bvh_and_gltf(tmp_path):
    script = tmp_path / "wave.twig"
    script.write_text("kid: gesture wave\n")
    scene = tmp_path / "one.toml"
    scene.write_text('[[object]]\ntype = "humanoid"\nname = "kid"\n')
    code = main(["script", str(script), "--scene", str(scene), "--bvh",
                 str(tmp_path / "wave.bvh"), "--gltf", str(tmp_path / "wave.glb")])
    assert code == 0
    assert (tmp_path / "wave.bvh").read_text().startswith("HIERARCHY")
    assert (tmp_path / "wave.glb").read_bytes()[:4] == b"glTF"
