"""Shared test settings: hypothesis profiles sized for CI (each test in seconds), and a test
run that stops cleanly when killed.

Examples are derandomized, so the suite is the same on every machine and every run (main
stays green for the same reasons it was green); explore more, with random examples, with
``pytest --hypothesis-profile=explore``.
"""

import signal

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("twig", max_examples=60, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", max_examples=500, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("twig")


def _interrupted(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.hookimpl
def pytest_configure(config):
    """``kill`` (SIGTERM) of a test run stops it as Ctrl-C does: fixtures' clean-up runs and
    every child process is stopped (tests/processes.py)."""
    signal.signal(signal.SIGTERM, _interrupted)
