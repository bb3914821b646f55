"""Work a command hands to a background thread, its result taken back at a fixed tick.

Some commands need a long computation before they can act: the motion-graph search of
``motion-graph-walk`` takes about 0.1 s per metre of path. Run on the world's thread it would
hold up every tick and, in ``twig serve``, every client's reply. Instead the command copies
what the computation needs into a :class:`Job` with a *due tick* and hands it to
:func:`background`: ``compute()`` runs on a worker thread (reading nothing of the world), and
its result is applied on the world's thread at the end of tick ``due - 1`` (between ticks, as
a command arriving before tick ``due`` would be), however long the computation took. So a run
is the same, bit for bit, on any machine and under any load:

- ``world.step`` (scripts, batch runs, ``twig replay``, tests: no one else waits) blocks at the
  due tick until the result is there;
- the real-time loop (:class:`~twig.realtime.RealTime`: ``twig serve``, the viewer) never steps
  into a tick whose result is not ready (:func:`ticks_ready`): it goes on answering clients
  and running queued work, and the simulation waits (its clock slips) only on a machine too slow
  for the due tick the command allowed.

A job's result is a pure function of what it copied, so a snapshot restored or a world loaded
before its due tick computes it again (or reuses it) and applies the same result.
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
import weakref
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from twig.errors import TwigError, describe

if TYPE_CHECKING:
    from twig.physics import PhysicsWorld


class JobCancelledError(Exception):
    """Raised inside a job's computation that was cancelled (see :attr:`Job.cancelled`)."""


class Job:
    """One computation and what to do with its result.

    Parameters
    ----------
    key
        Who it belongs to (``("motion-graph-walk", character_id)``): a new job with the same
        key cancels this one.
    compute
        ``compute(job)`` -> the result, run on the worker thread; it reads only what it was
        given and may raise :class:`JobCancelledError` once ``job.cancelled`` is set.
    due
        The tick (``world.tick``) at whose start the result is applied.
    apply
        ``apply(result)`` on the world's thread at the due tick.
    fail
        ``fail(reason)`` on the world's thread at the due tick if ``compute`` raised (a
        :class:`~twig.errors.TwigError`'s message, or an internal error's one line), or at
        once if the job is cancelled.
    """

    def __init__(self, key: Hashable, compute: Callable[[Job], Any], due: int,
                 apply: Callable[[Any], None], fail: Callable[[str], None]) -> None:
        self.key = key
        self.compute = compute
        self.due = int(due)
        self.apply = apply
        self.fail = fail
        self.cancelled = False

    def __repr__(self) -> str:
        return f"<Job {self.key!r} due at tick {self.due}>"


_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()
_futures: weakref.WeakKeyDictionary[Job, Future] = weakref.WeakKeyDictionary()
"""Each job's computation, kept beside the job (not in it) so that snapshots and saved worlds
hold only what the job was given: a job restored or loaded without one computes again."""


def _forget_in_child() -> None:
    """A forked process (a batch worker) has no worker thread: make a new executor there."""
    global _executor
    _executor = None
    _futures.clear()


os.register_at_fork(after_in_child=_forget_in_child)


def _stale(job: Job, future: Future | None) -> bool:
    """Whether the job must be computed (again): never started, or stopped by a cancel that a
    restored snapshot undid."""
    if future is None:
        return True
    if job.cancelled or not future.done():
        return False
    return future.cancelled() or isinstance(future.exception(), JobCancelledError)


def _future(job: Job) -> Future:
    """The job's computation, started if need be."""
    global _executor
    with _executor_lock:
        future = _futures.get(job)
        if _stale(job, future):
            if _executor is None:
                _executor = ThreadPoolExecutor(max_workers=1,
                                               thread_name_prefix="twig-background")
            future = _futures[job] = _executor.submit(job.compute, job)
    return future


class Background:
    """The jobs of one world waiting for their due tick (``background(world)``)."""

    def __init__(self, world: PhysicsWorld) -> None:
        self.world = world
        self.jobs: list[Job] = []
        world.stages.add("record", self.collect)

    def submit(self, job: Job) -> Job:
        """Start ``job`` (due after the current tick at the earliest); a waiting job with the
        same key is cancelled."""
        if job.due <= self.world.tick:
            raise TwigError(f"a background job is due at tick {job.due}, after the current "
                            f"tick {self.world.tick}")
        self.cancel(job.key, "replaced by a newer request")
        self.jobs.append(job)
        self.jobs.sort(key=lambda j: j.due)
        _future(job)
        return job

    def cancel(self, key: Hashable, reason: str) -> bool:
        """Cancel the waiting job with ``key`` (its ``fail(reason)`` runs now); whether there
        was one."""
        for job in [j for j in self.jobs if j.key == key]:
            self.jobs.remove(job)
            job.cancelled = True
            _futures.get(job, Future()).cancel()
            job.fail(reason)
            return True
        return False

    def ticks_ready(self) -> int | None:
        """How many ticks may run before one would wait for a result (None: no job waits)."""
        waiting = [j.due - 1 - self.world.tick for j in self.jobs if not _future(j).done()]
        return max(0, min(waiting)) if waiting else None

    def collect(self) -> None:
        """Record stage (the tick count already advanced): apply the jobs due at the next
        tick, in due order, waiting for their results."""
        tick = self.world.tick
        while self.jobs and self.jobs[0].due <= tick:
            job = self.jobs.pop(0)
            try:
                result = _future(job).result()
            except TwigError as e:
                job.fail(str(e))
                continue
            except Exception as e:  # a bug in the computation: its caller is told
                traceback.print_exception(e, file=sys.stderr)
                job.fail(describe(e))
                continue
            job.apply(result)


def background(world: PhysicsWorld) -> Background:
    """The world's background jobs (made on first use, in ``world.systems``)."""
    found = world.systems.get("background")
    if found is None:
        found = world.systems["background"] = Background(world)
    return found


def ticks_ready(world: PhysicsWorld) -> int | None:
    """How many ticks ``world`` may run before one would wait for a background result
    (None: no limit). The real-time loop steps no further, so it never blocks."""
    found = getattr(world, "systems", {}).get("background")
    return None if found is None else found.ticks_ready()
