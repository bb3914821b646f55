"""Running a batch: the jobs a spec expands to, minus those already finished, on a local
process pool or as Ray tasks, each result stored as it arrives (``twig batch``).

Both backends call :func:`twig.batch.job.run_job` in a fresh worker process (the local pool
starts its workers with ``spawn``, so a worker holds nothing of the parent's state), and
hand each :class:`~twig.batch.job.JobResult` back to this process, the only writer of the
output folder. A job's outputs therefore depend on its parameters only, wherever it ran.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from twig.batch.job import JobResult, run_job
from twig.batch.manifest import Manifest
from twig.batch.spec import BatchError
from twig.batch.sweep import BatchSpec, Job, load_spec

Done = Callable[[JobResult], None]


def failed_result(job: Job, error: str) -> JobResult:
    """The row of a job that never returned (its worker died, Ray gave up on it)."""
    return JobResult({"job": job.id, "group": job.group, "index": job.index,
                      "params": job.params, "status": "failed", "error": error}, {})


def _ignore_sigint() -> None:
    """Pool workers leave Ctrl-C to the parent, which stops them (see :class:`LocalPool`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalPool:
    """``workers`` processes on this machine (spawned; at most twice as many jobs queued as
    workers, so a Ctrl-C or a crashed worker touches few)."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise BatchError(f"--workers: expected a positive number, got {workers}")
        self.workers = workers

    def run(self, jobs: list[Job], done: Done) -> None:
        """Run ``jobs``, calling ``done`` with each result as it arrives."""
        queue = deque(jobs)
        context = multiprocessing.get_context("spawn")
        while queue:
            pool = ProcessPoolExecutor(min(self.workers, len(queue)), mp_context=context,
                                       initializer=_ignore_sigint)
            try:
                self._drain(pool, queue, done)
            except BaseException:
                for process in multiprocessing.active_children():
                    process.terminate()
                raise
            finally:
                pool.shutdown(wait=False, cancel_futures=True)

    def _drain(self, pool: ProcessPoolExecutor, queue: deque[Job], done: Done) -> None:
        """Feed ``pool`` until the queue is empty or the pool breaks (a worker died: the
        jobs it had are recorded as failed and a new pool takes the rest)."""
        running: dict[Future, Job] = {}
        broken = False
        while (queue and not broken) or running:
            while queue and not broken and len(running) < 2 * self.workers:
                job = queue.popleft()
                running[pool.submit(run_job, job)] = job
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                job = running.pop(future)
                try:
                    done(future.result())
                except BrokenProcessPool as e:
                    broken = True
                    done(failed_result(job, f"the worker process died ({e}); run the batch "
                                            "again to retry"))


class RayCluster:
    """Ray tasks (one CPU each) on the cluster at ``address`` (``"auto"``: the one this
    machine belongs to), or on a Ray instance started here with ``workers`` CPUs when
    ``address`` is ``"local"``. A Ray already initialised by the caller is used as it is."""

    def __init__(self, address: str, workers: int) -> None:
        self.address = address
        self.workers = workers

    def run(self, jobs: list[Job], done: Done) -> None:
        """Run ``jobs`` as Ray tasks, calling ``done`` with each result as it arrives."""
        try:
            import ray
        except ImportError:
            raise BatchError("--ray needs Ray: pip install 'twig[ray]'") from None
        started = not ray.is_initialized()
        if started:
            options = {"include_dashboard": False, "log_to_driver": False}
            if self.address == "local":
                ray.init(num_cpus=self.workers, **options)
            else:
                ray.init(address=self.address, **options)
        task = ray.remote(num_cpus=1)(run_job)
        pending = {task.remote(job): job for job in jobs}
        try:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    job = pending.pop(ref)
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayError as e:
                        result = failed_result(job, f"Ray: {type(e).__name__}: {e}")
                    done(result)
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise
        finally:
            if started:
                ray.shutdown()


@dataclass(frozen=True)
class BatchReport:
    """What a run did: ``jobs`` in the spec, ``skipped`` (finished by an earlier run),
    ``ok`` and ``failed`` this time, whether it was ``interrupted``, its ``wall_s`` and the
    output folder ``out``."""

    jobs: int
    skipped: int
    ok: int
    failed: int
    interrupted: bool
    wall_s: float
    out: Path

    @property
    def jobs_per_minute(self) -> float:
        """Jobs run this time per minute of wall time."""
        ran = self.ok + self.failed
        return 60.0 * ran / self.wall_s if self.wall_s > 0 else 0.0


def run_batch(spec: BatchSpec | str | Path, out: str | Path, *, workers: int | None = None,
              ray: str | None = None, console: Console | None = None) -> BatchReport:
    """Run every job of ``spec`` (a :class:`BatchSpec`, a spec path or a built-in spec name)
    not already finished in ``out``; see docs/batch.md.

    Parameters
    ----------
    workers
        Local worker processes (default: every core); with ``ray="local"``, the CPUs of the
        Ray instance started here.
    ray
        None for the local pool; ``"local"``, ``"auto"`` or a cluster address for Ray.
    console
        Where the progress bar goes (None: no bar).

    A Ctrl-C (KeyboardInterrupt) stops the batch with its manifest whole; the report then
    says ``interrupted``.
    """
    spec = spec if isinstance(spec, BatchSpec) else load_spec(spec)
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BatchError(f"--out {str(out)!r}: cannot make the folder: {e}") from None
    manifest = Manifest(out)
    order = [job.id for job in spec.jobs]
    manifest.rewrite(order)
    todo = [job for job in spec.jobs if not manifest.finished(job.id)]
    workers = workers or os.cpu_count() or 1
    backend = LocalPool(workers) if ray is None else RayCluster(ray, workers)
    counts = {"ok": 0, "failed": 0}
    t0 = time.perf_counter()
    interrupted = False
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("jobs, {task.fields[failed]} failed"), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=console, disable=console is None) as bar:
        task = bar.add_task(spec.path.stem, total=len(spec.jobs),
                            completed=len(spec.jobs) - len(todo), failed=0)

        def done(result: JobResult) -> None:
            row = result.row
            row["files"] = manifest.store(row["job"], result.files) \
                if row["status"] == "ok" else {}
            manifest.add(row)
            counts[row["status"]] += 1
            bar.update(task, advance=1, failed=counts["failed"])

        try:
            if todo:
                backend.run(todo, done)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            manifest.rewrite(order)
            manifest.tidy()
    return BatchReport(len(spec.jobs), len(spec.jobs) - len(todo), counts["ok"],
                       counts["failed"], interrupted, time.perf_counter() - t0, out)
