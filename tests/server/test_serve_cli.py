"""``twig serve`` as a user runs it: a process, a port, Ctrl-C, and the record it leaves."""

import json
import re
import signal
import subprocess
import sys

from twig.client import Client


def test_twig_serve_serves_until_interrupted_and_ends_its_record(tmp_path):
    log = tmp_path / "s.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "twig", "serve", "marionette", "--port", "0", "--ws-port", "-1",
         "--record", str(log)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = proc.stdout.readline()
        port = int(re.search(r"port (\d+)", banner).group(1))
        with Client(port=port) as c:
            assert [o["name"] for o in c.command("world: objects")] == ["puppet", "ball"]
            c.command("world: wait 0.2")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
    assert proc.returncode == 0, proc.stderr.read()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records[0]["scene"] == "marionette" and "hash" in records[-1]
    assert [r["line"] for r in records[1:-1]] == ["world: json on", "world: objects",
                                                  "world: wait 0.2"]


def test_twig_serve_view_serves_the_viewer_whose_command_box_reaches_the_world():
    proc = subprocess.Popen(
        [sys.executable, "-m", "twig", "serve", "hug", "--port", "0", "--ws-port", "-1",
         "--view", "--view-port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
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
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
    assert proc.returncode == 0, proc.stderr.read()
