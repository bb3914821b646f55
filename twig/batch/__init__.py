"""Batch generation: many scenes, seeds, scripts and scene variations across cores and
machines (``twig batch``; docs/batch.md).

Usage::

    from twig.batch import load_spec, run_batch, run_job

    spec = load_spec("sweep")                # a spec file, or a built-in example spec
    report = run_batch(spec, "sweep-out", workers=2)
    result = run_job(spec.jobs[0])           # one job in this process: its row and files
"""

from twig.batch.job import JobResult, run_job
from twig.batch.metrics import foot_skate, plant_slides
from twig.batch.runner import BatchReport, run_batch
from twig.batch.spec import BatchError
from twig.batch.sweep import BatchSpec, Job, load_spec

__all__ = ["BatchError", "BatchReport", "BatchSpec", "Job", "JobResult", "foot_skate",
           "load_spec", "plant_slides", "run_batch", "run_job"]
