"""Mistakes on the command line: one line on stderr, exit status 2, before any work."""

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from twig.cli import main


def one_line_error(capsys, argv) -> str:
    """Run ``twig argv``; it must fail with status 2, one line on stderr and nothing on
    stdout (nothing was simulated)."""
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's own errors exit from the parser
        code = e.code
    captured = capsys.readouterr()
    assert code == 2, captured
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


@pytest.mark.parametrize("argv, expected", [
    (["run", "demo", "--seconds", "-1"], "--seconds: expected a number of seconds above 0"),
    (["run", "demo", "--seconds", "0"], "above 0, got 0"),
    (["run", "demo", "--seconds", "inf"], "above 0, got inf"),
    (["run", "demo", "--seconds", "ten"], "expected a number of seconds, got 'ten'"),
    (["run", "demo", "--seed", "-3"], "--seed: expected a seed in 0.."),
    (["run", "demo", "--fps", "0"], "frames per second in 1..120"),
    (["run", "demo", "--view-port", "70000"], "expected a port in 0..65535"),
    (["serve", "--port", "80000"], "--port: expected a port in 0..65535"),
    (["serve", "--ws-port", "-2"], "-1: none), got -2"),
    (["serve", "--speed", "0"], "--speed: expected a number above 0"),
    (["script", "x.twig", "--seconds", "-5"], "above 0, got -5"),
    (["batch", "sweep", "--workers", "0"], "expected 1 or more workers"),
    (["check", "walk", "--seconds", "0"], "--seconds: expected a number of seconds above 0"),
    (["check", "walk", "--seeds", "0"], "--seeds: expected 1 or more, got 0"),
    (["rnu", "demo"], "did you mean 'run'?"),
    (["run", "demo", "--secnds", "3"], "did you mean '--seconds'?"),
])
def test_bad_values_are_refused_by_the_parser(capsys, argv, expected):
    assert expected in one_line_error(capsys, argv)


def test_unwritable_outputs_are_refused_before_the_scene_loads(tmp_path, capsys):
    missing = tmp_path / "nonexistent" / "x"
    for option, suffix in (("--npz", ".npz"), ("--trace", ".jsonl"), ("--bvh", ".bvh"),
                           ("--gltf", ".glb"), ("--video", ".mp4")):
        line = one_line_error(capsys, ["run", "demo", option, f"{missing}{suffix}"])
        assert line.startswith("twig: error: " + option) and "no folder" in line
    assert "is a folder" in one_line_error(capsys, ["run", "demo", "--npz", str(tmp_path)])
    assert ".mp4 or .gif" in one_line_error(capsys, ["run", "demo", "--video", "x.avi"])
    assert ".glb or .gltf" in one_line_error(capsys, ["run", "demo", "--gltf", "x.obj"])
    assert "WIDTHxHEIGHT" in one_line_error(capsys, ["run", "demo", "--video", "x.mp4",
                                                     "--video-size", "big"])
    assert "no such file" in one_line_error(capsys, ["script", str(tmp_path / "none.twig")])
    assert not list(tmp_path.iterdir())


def test_a_misspelled_scene_or_field_gets_a_suggestion(tmp_path, capsys):
    assert "did you mean 'playground'?" in one_line_error(capsys, ["run", "playgrond"])
    scene = tmp_path / "kid.toml"
    scene.write_text('[[object]]\ntype = "humanoid"\nname = "kid"\nheigth = 1.2\n')
    assert "unknown field 'heigth' (did you mean 'height'?)" in one_line_error(
        capsys, ["run", str(scene)])
    scene.write_text('[[object]]\ntype = "humanid"\nname = "kid"\n')
    assert "(did you mean 'humanoid'?)" in one_line_error(capsys, ["run", str(scene)])


def test_serve_on_a_port_in_use_is_one_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "twig", "serve", "--port", str(port),
                               "--ws-port", "-1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == (f"twig: error: --port {port}: port {port} on 127.0.0.1 is "
                                   "in use (another twig serve?); choose another with --port, "
                                   "or 0 for any free port")


def test_version_and_every_help_shows_its_defaults(capsys):
    from twig import __version__

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out == f"twig {__version__}\n"
    for command, shown in (("serve", ("default: 7777", "default: 7778", "default: 127.0.0.1")),
                           ("run", ("default 30", "default 640x360")),
                           ("script", ("default 600",))):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        for default in shown:
            assert default in text, (command, default)


def test_every_command_has_help(capsys):
    """``--help`` of every command prints its usage (a ``%`` in an option's help once made
    argparse fail on ``twig check --help``)."""
    import argparse

    from twig.cli import _parser

    commands = next(a for a in _parser()._actions
                    if isinstance(a, argparse._SubParsersAction)).choices
    for command in commands:
        with pytest.raises(SystemExit) as stop:
            main([command, "--help"])
        assert stop.value.code == 0 and f"usage: twig {command}" in capsys.readouterr().out


def test_the_benchmark_script_help_does_not_start_the_benchmark():
    done = subprocess.run([sys.executable, "benchmarks/run.py", "--help"], capture_output=True,
                          text=True, timeout=60, cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0 and "--quick" in done.stdout
    assert "benchmarking" not in done.stdout + done.stderr
