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
