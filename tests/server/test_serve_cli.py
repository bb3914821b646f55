"""``twig serve`` as a user runs it: a process, a port, Ctrl-C, and the record it leaves."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from processes import interrupt, start_twig

from twig.client import Client


def test_twig_serve_serves_until_interrupted_and_ends_its_record(tmp_path):
    log = tmp_path / "s.jsonl"
    proc = start_twig("serve", "marionette", "--port", "0", "--ws-port", "-1", "--record",
                      str(log), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = proc.stdout.readline()
        port = int(re.search(r"port (\d+)", banner).group(1))
        with Client(port=port) as c:
            assert [o["name"] for o in c.command("world: objects")] == ["puppet", "ball"]
            c.command("world: wait 0.2")
    finally:
        code = interrupt(proc)
    assert code == 0, proc.stderr.read()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records[0]["scene"] == "marionette" and "hash" in records[-1]
    assert [r["line"] for r in records[1:-1]] == ["world: json on", "world: objects",
                                                  "world: wait 0.2"]


def test_twig_serve_view_serves_the_viewer_whose_command_box_reaches_the_world():
    proc = start_twig("serve", "hug", "--port", "0", "--ws-port", "-1", "--view",
                      "--view-port", "0", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      text=True)
    try:
        url = re.search(r"viewer: (\S+)", proc.stdout.readline()).group(1)
        port = int(re.search(r"port (\d+)", proc.stdout.readline()).group(1))
        import urllib.request

        with urllib.request.urlopen(url, timeout=10) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
        with Client(port=port) as c:
            assert {o["name"] for o in c.command("world: objects")} == {"parent", "kid"}
    finally:
        code = interrupt(proc)
    assert code == 0, proc.stderr.read()


def test_an_interrupted_test_run_leaves_no_twig_serve_behind(tmp_path):
    """pytest started as a background job (SIGINT ignored, inherited by its children) and
    stopped with kill: the ``twig serve`` its test started is stopped with it."""
    test = tmp_path / "test_serving.py"
    test.write_text(
        "import subprocess, time\n"
        "from processes import interrupt, start_twig\n"
        "def test_serving(tmp_path):\n"
        "    proc = start_twig('serve', '--port', '0', '--ws-port', '-1',\n"
        "                      stdout=subprocess.PIPE, text=True)\n"
        "    try:\n"
        "        print(proc.pid, flush=True)\n"
        "        (tmp_path.parent / 'pid').write_text(str(proc.pid))\n"
        "        proc.stdout.readline()\n"
        "        time.sleep(600)\n"
        "    finally:\n"
        "        interrupt(proc)\n")
    tests = Path(__file__).resolve().parents[1]
    (tmp_path / "conftest.py").write_text((tests / "conftest.py").read_text())
    (tmp_path / "processes.py").write_text((tests / "processes.py").read_text())
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp",
         str(tmp_path / "t"), str(test)], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # as `pytest &`
    try:
        pid_file = tmp_path / "t" / "pid"
        deadline = time.monotonic() + 120
        while not pid_file.exists():
            assert run.poll() is None and time.monotonic() < deadline, run.stdout.read()
            time.sleep(0.2)
        serve = int(pid_file.read_text())
        time.sleep(2.0)                        # serving now
        run.send_signal(signal.SIGTERM)
        assert run.wait(60) != 0
        deadline = time.monotonic() + 30
        while _alive(serve):
            assert time.monotonic() < deadline, f"twig serve {serve} outlived the test run"
            time.sleep(0.2)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(30)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:   # a zombie is gone but not yet reaped
        return stat.read().split(")")[-1].split()[0] != "Z"
