"""Run a world at wall-clock pace: the loop shared by ``twig serve`` and the live viewer.

One background thread owns the world. Everything else (network clients, the viewer's buttons)
hands it work with :meth:`RealTime.submit`; queued work runs between ticks in arrival order, so
no tick ever sees a half-made edit and a session is reproducible from its command log. After
each batch of ticks the ``on_frame`` callbacks run on the same thread (the viewer copies node
positions there). The loop never steps into a tick whose background result (a motion-graph
search, :mod:`twig.background`) is not ready: it goes on running queued work meanwhile.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from twig.background import ticks_ready
from twig.errors import TwigError, describe
from twig.physics import PhysicsWorld

T = TypeVar("T")

MIN_SPEED, MAX_SPEED = 0.01, 64.0
"""Smallest and largest speed factor (simulated seconds per wall-clock second)."""
TURN = 0.008
"""Longest wait (s) between two turns of the loop: half a tick at speed 1, whatever the speed
(or pause), so queued requests run at least this often."""
SLICE = 0.01
"""Most wall-clock seconds of single steps run back to back while paused before queued work
runs again (``world: step 30000`` is sliced, not run in one go)."""


def check_speed(speed: float) -> float:
    """``speed`` as a float, if it is a speed factor from :data:`MIN_SPEED` to
    :data:`MAX_SPEED`; else TwigError."""
    if not (isinstance(speed, int | float) and not isinstance(speed, bool)
            and MIN_SPEED <= speed <= MAX_SPEED):
        raise TwigError(f"speed must be a number from {MIN_SPEED:g} to {MAX_SPEED:g}, "
                        f"got {speed!r}")
    return float(speed)


class RealTime:
    """Steps ``world`` at ``speed`` times real time (``1/dt`` ticks per second at speed 1).

    Parameters
    ----------
    world
        The world this loop owns from :meth:`start` until :meth:`stop`.
    speed
        Simulated seconds per wall-clock second, from MIN_SPEED to MAX_SPEED.
    paused
        Start paused (queued work still runs; :meth:`step_once` advances one tick).
    max_catchup
        Most ticks run back to back after a stall; beyond that the clock slips instead of
        running the simulation in a burst.
    """

    def __init__(self, world: PhysicsWorld, speed: float = 1.0, paused: bool = False,
                 max_catchup: int = 6) -> None:
        self.world = world
        self._speed = check_speed(speed)
        self.paused = paused
        self.max_catchup = max_catchup
        self.on_frame: list[Callable[[PhysicsWorld], None]] = []
        self.on_turn: list[Callable[[], None]] = []
        """Called once per turn of the loop (at least every :data:`TURN` seconds), after the
        queued work and the ticks due: the server runs its clients' requests there."""
        self.on_failure: list[Callable[[str], None]] = []
        self.failure: str | None = None
        self._work: queue.SimpleQueue[tuple[Callable[[], Any], Future]] = queue.SimpleQueue()
        self._single_steps = 0
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._pace = (0.0, 0, 0)
        self.held = False
        """Whether the last turn stopped short of the ticks due, waiting for a background
        result (:mod:`twig.background`)."""
        self.ticks_run = 0

    @property
    def speed(self) -> float:
        """Simulated seconds per wall-clock second."""
        return self._speed

    @speed.setter
    def speed(self, value: float) -> None:
        self._speed = check_speed(value)

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        """Run ``fn()`` on the loop's thread before the next tick; its result or exception
        arrives in the returned future. Work submitted after :meth:`stop` fails at once."""
        future: Future[T] = Future()
        if self._stop.is_set():
            future.set_exception(TwigError("the simulation has stopped"))
            return future
        self._work.put((fn, future))
        self._wake.set()
        return future

    def step_once(self, ticks: int = 1) -> None:
        """While paused, advance exactly ``ticks`` ticks (thread-safe); they run in slices of
        :data:`SLICE` seconds with queued work in between."""
        self.submit(lambda: self._add_single_steps(ticks))

    def _add_single_steps(self, ticks: int) -> None:
        self._single_steps += ticks

    def start(self) -> RealTime:
        """Start the loop's thread (returns self)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="twig-realtime", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop after the current tick; queued work that did not run fails."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        while not self._work.empty():
            _, future = self._work.get_nowait()
            future.set_exception(TwigError("the simulation has stopped"))

    def _drain(self) -> None:
        while True:
            try:
                fn, future = self._work.get_nowait()
            except queue.Empty:
                return
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn())
            except BaseException as e:  # delivered to the submitter, the loop stays up
                future.set_exception(e)

    def _run(self) -> None:
        self._pace = (time.perf_counter(), 0, 0)
        while not self._stop.is_set():
            try:
                self._turn()
            except Exception as e:  # a bug of the loop itself: said, paused, still serving
                self._fail(e, "the real-time loop failed with")
                self._wake.wait(0.05)
                self._wake.clear()

    def _turn(self) -> None:
        """Run queued work, then the ticks due (at most up to a background result not yet
        in), then wait for the next tick or for work."""
        self._drain()
        dt = self.world.dt
        # ``origin``: when counting started; ``owed``: ticks due then; ``done``: ran since.
        origin, owed, done = self._pace
        if self.paused:
            ticks = self._single_steps
            origin, owed, done = time.perf_counter(), 0, 0
        else:
            ticks = owed + int((time.perf_counter() - origin) * self._speed / dt) - done
            if ticks > self.max_catchup:
                # Fell behind (a slow tick, a pause of the process): slip the clock.
                origin, owed, done = time.perf_counter(), 0, 0
                ticks = self.max_catchup
        ready = ticks_ready(self.world) if ticks > 0 else None
        held = self.held = ready is not None and ready < ticks
        if held:
            ticks = ready  # a background result is not in yet: serve, step no further
        if ticks > 0:
            done += self._step(ticks, single=self.paused)
            for callback in list(self.on_frame):
                try:
                    callback(self.world)
                except Exception:  # a viewer's or server's bug: logged, the loop goes on
                    traceback.print_exc(file=sys.stderr)
        self._pace = (origin, owed, done)
        for callback in list(self.on_turn):
            try:
                callback()
            except Exception:  # the server's bug: logged, the loop goes on
                traceback.print_exc(file=sys.stderr)
        if self.paused and self._single_steps and not held:
            return  # more single steps: run queued work, then the next slice
        self._wake.wait(min(TURN, 0.5 * dt / self._speed))
        self._wake.clear()

    def _step(self, ticks: int, single: bool) -> int:
        """Run ``ticks`` ticks (``single``: that many of the single steps, for at most
        :data:`SLICE` seconds); a tick that raises pauses the clock and tells
        :attr:`on_failure` why. Returns ticks run."""
        start, before = time.perf_counter(), self.world.tick
        try:
            if not single:
                self.world.step(ticks)
            else:
                while (self._single_steps and self.world.tick - before < ticks
                       and time.perf_counter() - start < SLICE):
                    self._single_steps -= 1
                    self.world.step(1)
        except Exception as e:
            self._fail(e, "a tick failed with")
        ran = self.world.tick - before
        self.ticks_run += ran
        return ran

    def _fail(self, error: Exception, what: str) -> None:
        """A tick (or the loop) raised: the world cannot go on as it is. Pause (queued work
        and queries still run; ``world: resume`` tries again) and say ``what`` happened, on
        the log and to listeners."""
        self.paused = True
        self._single_steps = 0
        self.failure = (f"the world stopped at tick {self.world.tick}: {what} "
                        f"{describe(error)}; it is paused (world: resume tries again)")
        print(f"twig: {self.failure}", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        for listener in list(self.on_failure):
            try:
                listener(self.failure)
            except Exception:
                traceback.print_exc(file=sys.stderr)
