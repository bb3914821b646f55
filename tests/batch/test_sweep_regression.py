"""A short believability sweep: scenes that pass the acceptance thresholds keep passing them
(``twig check --strict`` on a few seconds of each)."""

import pytest

from twig.batch.check import STRICT, check_jobs, crossed
from twig.batch.job import run_job


@pytest.mark.parametrize(("scene", "seconds"), [("office", 3.0), ("walk", 6.0),
                                                ("hybrid", 3.0)])
def test_a_short_run_stays_within_the_strict_thresholds(scene, seconds):
    row = run_job(check_jobs([scene], [0], seconds)[0]).row
    assert row["status"] == "ok", row.get("error")
    assert crossed(scene, row["check"]["metrics"], STRICT) == []


def test_the_kick_still_knocks_the_partner_down_with_pain():
    row = run_job(check_jobs(["kick"], [1], 3.0)[0]).row
    metrics = row["check"]["metrics"]
    assert metrics["falls_pain"] >= 1 and metrics["adult_falls_unexplained"] == 0
