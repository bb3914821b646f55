"""Child processes of the tests (``twig serve``, ``twig run --view``, Chromium) that never
outlive the test run.

Each child gets a process group of its own and SIGINT at its default action: a shell runs a
background job with SIGINT ignored, and a child inherits that, so without the reset a test's
Ctrl-C (``interrupt``) would never reach a ``twig serve`` started from ``pytest &``, and the
test would wait and leave it running. :func:`interrupt` sends Ctrl-C and kills the whole group
when that does not end it in time; every child still running when the interpreter exits is
killed (``atexit``), and ``tests/conftest.py`` turns SIGTERM into KeyboardInterrupt so that
``kill`` of a test run also runs the tests' clean-up.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import sys

_CHILDREN: list[subprocess.Popen] = []


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(argv: list[str], **kwargs) -> subprocess.Popen:
    """``subprocess.Popen(argv, **kwargs)`` in a new process group, SIGINT at its default."""
    proc = subprocess.Popen(argv, process_group=0, preexec_fn=_default_sigint, **kwargs)
    _CHILDREN.append(proc)
    return proc


def start_twig(*args: str, **kwargs) -> subprocess.Popen:
    """``python -m twig ARGS`` as :func:`start` runs it."""
    return start([sys.executable, "-m", "twig", *args], **kwargs)


def kill(proc: subprocess.Popen) -> None:
    """Kill ``proc``'s whole process group (if it still runs) and reap it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)


def interrupt(proc: subprocess.Popen, timeout: float = 60.0) -> int | None:
    """Ctrl-C (SIGINT), as a user stops it; its exit status, or None if it had to be killed
    after ``timeout`` seconds."""
    if proc.poll() is not None:
        return proc.returncode
    proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        kill(proc)
        return None


@atexit.register
def _kill_every_child() -> None:
    for proc in _CHILDREN:
        kill(proc)
