"""``twig script FILE.twig``: run a script on a scene to completion and report."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Console

from twig.script.interpreter import Interpreter
from twig.script.syntax import read_script
from twig.world import World


def open_world(scene: str | None, seed: int | None = None) -> World:
    """The scene (with its own script, if it names one), or an empty world with ground."""
    if scene is None:
        return World(seed=0 if seed is None else seed)
    from twig.scenes import load_scene

    return load_scene(scene, seed=seed)


if TYPE_CHECKING:
    from twig.export.recording import Recording


def script_main(path: str, scene: str | None, seed: int | None, max_seconds: float,
                npz: str | None, out: Console,
                exports: Callable[[Recording | None, str], Recording | None] | None = None
                ) -> int:
    """Run the script; 0 if it finished, 1 if it failed or ran out of time. ``exports``
    (the CLI's BVH/glTF writer) is called with the recording before the run (``"check"``:
    it may start one, and fail early on a bad path) and after it (``"write"``)."""
    from twig.summary import summary_table

    calls = read_script(path)  # every line checked before the world is built
    world = open_world(scene, seed)
    recording = world.record() if npz else None
    if exports is not None:
        recording = exports(recording or world.record(), "check")
    interpreter = Interpreter(world, calls, output=lambda line: out.print(
        line, markup=False, highlight=False, soft_wrap=True))
    wall = time.perf_counter()
    status = interpreter.run(max_seconds)
    wall = time.perf_counter() - wall
    message = {"finished": "finished", "failed": f"stopped: {interpreter.reason}",
               "running": f"still running after {max_seconds:g} s (--seconds)"}[status]
    end = world.time if interpreter.ended_at is None else interpreter.ended_at
    out.print(f"[bold]{path}[/]: {message} at t={end:.3f} s ({wall:.2f} s of wall time)",
              highlight=False, soft_wrap=True)
    out.print(summary_table(world))
    if exports is not None:
        exports(recording, "write")
    if npz:
        recording.save(npz)
        out.print(f"wrote {len(recording)} frames to {npz}")
    return 0 if status == "finished" else 1
