"""Batch generation: many scenes, seeds, scripts and scene variations across cores and
machines (``twig batch``; docs/batch.md).

Usage::

    from twig.batch import load_spec, run_batch, run_job

    spec = load_spec("sweep")                # a spec file, or a built-in example spec
    report = run_batch(spec, "sweep-out", workers=2)
    result = run_job(spec.jobs[0])           # one job in this process: its row and files
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from twig.batch.job import JobResult, run_job
    from twig.batch.metrics import foot_skate, plant_slides
    from twig.batch.runner import BatchReport, run_batch
    from twig.batch.spec import BatchError
    from twig.batch.sweep import BatchSpec, Job, load_spec

_LAZY = {"JobResult": "job", "run_job": "job", "foot_skate": "metrics",
         "plant_slides": "metrics", "BatchReport": "runner", "run_batch": "runner",
         "BatchError": "spec", "BatchSpec": "sweep", "Job": "sweep", "load_spec": "sweep"}
"""Where each public name is: imported on first use, so that the ``twig`` command's argument
parser (``twig.batch.check``, ``twig.batch.command``) does not import the runs' code."""

__all__ = ["BatchError", "BatchReport", "BatchSpec", "Job", "JobResult", "foot_skate",
           "load_spec", "plant_slides", "run_batch", "run_job"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'twig.batch' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"twig.batch.{module}"), name)
    globals()[name] = value
    return value
