"""``twig batch`` from the command line: stopped by Ctrl-C or killed midway, its manifest
stays whole and a re-run does only the jobs that are missing."""

import os
import signal
import subprocess
import sys
import time

from batch_helpers import manifest_rows, write_spec

from twig.cli import main

SPEC_12 = """
[batch]
seconds = 3.0
outputs = ["npz"]

[[jobs]]
name = "walkers"
scene = "walk"
[jobs.vary]
walker.height = {min = 1.2, max = 1.9, steps = 12}
"""


def start_batch(spec, out):
    """``python -m twig batch`` in a process group of its own (so its workers can be
    signalled with it, as a terminal's Ctrl-C does)."""
    return subprocess.Popen([sys.executable, "-m", "twig", "batch", str(spec), "--workers", "2",
                             "--out", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)


def stop_after(process, out, rows, sig, limit=600.0):
    """Send ``sig`` to the batch's process group once the manifest has ``rows`` rows (the first
    jobs may compile the kernels in each worker: minutes on a loaded 2-core machine); the
    number of rows it had then, and the batch's exit status."""
    manifest = out / "manifest.jsonl"
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and process.poll() is None:
        if manifest.exists() and manifest.read_text().count("\n") >= rows:
            break
        time.sleep(0.02)
    seen = manifest.read_text().count("\n")
    os.killpg(process.pid, sig)
    process.communicate(timeout=60)
    return seen, process.returncode


def assert_whole(out):
    """Every manifest line is a finished job whose files are all there."""
    rows = manifest_rows(out)
    for row in rows:
        assert row["status"] == "ok"
        assert all((out / path).is_file() for paths in row["files"].values() for path in paths)
    return rows


def test_ctrl_c_and_kill_leave_a_whole_manifest_and_a_rerun_finishes_the_rest(tmp_path):
    spec = write_spec(tmp_path, SPEC_12)
    out = tmp_path / "out"
    seen, status = stop_after(start_batch(spec, out), out, 2, signal.SIGINT)
    assert status == 130
    interrupted = assert_whole(out)
    assert seen <= len(interrupted) < 12

    seen, status = stop_after(start_batch(spec, out), out, len(interrupted) + 2, signal.SIGKILL)
    assert status == -signal.SIGKILL
    killed = assert_whole(out)
    assert len(interrupted) < len(killed) < 12
    assert killed[:len(interrupted)] == interrupted  # finished jobs were not run again

    process = start_batch(spec, out)
    log, _ = process.communicate(timeout=600)
    assert process.returncode == 0, log
    assert f"12 jobs: {12 - len(killed)} finished, 0 failed, {len(killed)} already done" in log
    rows = assert_whole(out)
    assert len(rows) == 12
    by_job = {row["job"]: row for row in rows}
    assert all(by_job[row["job"]] == row for row in killed)


def test_list_shows_the_jobs_and_what_is_done(tmp_path, capsys):
    spec = write_spec(tmp_path, "[[jobs]]\nscene = 'tetra'\nseeds = [0, 1]\n")
    assert main(["batch", str(spec), "--list", "--out", str(tmp_path / "out")]) == 0
    text = capsys.readouterr().out
    assert "spec.toml: 2 jobs" in text and text.count("to run") == 2


def test_a_bad_spec_is_an_error_naming_the_field(tmp_path, capsys):
    spec = write_spec(tmp_path, "[[jobs]]\nscene = 'tetra'\nseeds = 'all'\n")
    assert main(["batch", str(spec)]) == 2
    assert "[[jobs]] #1: field 'seeds': expected an integer" in capsys.readouterr().err
