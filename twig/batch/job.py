"""Running one job: load the (overridden) scene, run it, export, measure.

:func:`run_job` is what a worker process or a Ray task calls. It writes the job's files in a
temporary folder of its own and returns their bytes with the manifest row, so the process
that keeps the manifest is the only one that writes the batch's output folder (a cluster
needs no shared file system) and a job's folder appears whole or not at all. Everything it
returns except ``wall_s`` and ``worker`` depends only on the job's parameters.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twig.batch.believability import CheckWatch, believability
from twig.batch.metrics import FallWatch, job_metrics
from twig.batch.spec import OUTPUTS, SCRIPT_LIMIT, BatchError
from twig.batch.sweep import Job
from twig.batch.template import scene_editor
from twig.errors import TwigError
from twig.events import Event
from twig.export.trace import TraceWriter

if TYPE_CHECKING:
    from twig.script.interpreter import Interpreter
    from twig.world import World


@dataclass(frozen=True)
class JobResult:
    """A finished job: its manifest ``row`` and ``files`` (file name -> contents) for its
    folder (empty when it failed)."""

    row: dict[str, Any]
    files: dict[str, bytes]


def run_job(job: Job) -> JobResult:
    """Run ``job`` and return its row and files; an error in the job (a scene that does not
    load, a script that does not parse, an export that cannot be made) is caught and
    recorded in the row as ``status = "failed"`` with ``error``."""
    row: dict[str, Any] = {"job": job.id, "group": job.group, "index": job.index,
                           "params": job.params}
    t0 = time.perf_counter()
    files: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory(prefix=f"twig-{job.id}-") as tmp:
        try:
            row.update(_simulate(job, Path(tmp)))
            files = {p.name: p.read_bytes() for p in sorted(Path(tmp).iterdir())}
            row.update(status="ok", error=None)
        except TwigError as e:
            row.update(status="failed", error=str(e))
        except Exception as e:
            row.update(status="failed", error=f"{type(e).__name__}: {e}",
                       traceback=traceback.format_exc(limit=-8))
    row.update(wall_s=round(time.perf_counter() - t0, 4),
               worker=f"{socket.gethostname()}:{os.getpid()}")
    return JobResult(row, files)


def _simulate(job: Job, folder: Path) -> dict[str, Any]:
    """Load, run, export into ``folder``; the row's results."""
    from twig.scenes import load_scene
    from twig.script.interpreter import Interpreter
    from twig.script.syntax import read_script

    p = job.params
    world = load_scene(job.scene, seed=p["seed"],
                       edit=scene_editor(p["overrides"], f"scene {p['scene']!r}: vary"))
    scripts: list[tuple[str, str, Interpreter]] = []
    if getattr(world, "script", None) is not None:
        info = world.scene
        scripts.append(("scene", str(info.script.relative_to(info.path.parent)), world.script))
    if job.script is not None:
        scripts.append(("job", p["script"], Interpreter(world, read_script(job.script))))
    switches: list[Event] = []
    world.events.subscribe(switches.append, ("behavior",))
    trace = TraceWriter(world, folder / OUTPUTS["trace"]) if "trace" in p["outputs"] else None
    recording = world.record()
    falls = FallWatch(world)
    watch = CheckWatch(world) if "check" in p["outputs"] else None
    try:
        _advance(world, p, [s for _, _, s in scripts], folder)
    finally:
        if trace is not None:
            trace.close()
    recording.stop()
    arrays = recording.arrays()
    _export(p["outputs"], recording, folder)
    extra = {}
    if watch is not None:
        extra["check"] = believability(world, arrays, recording.dt, watch)
        (folder / OUTPUTS["check"]).write_text(json.dumps(extra["check"], indent=1) + "\n")
    return {
        "seed": world.seed, "ticks": world.tick, "sim_seconds": round(world.time, 9),
        "state_hash": world.state_hash(),
        "scripts": [{"of": of, "file": f, "status": s.status, "reason": s.reason,
                     "ended_at": s.ended_at} for of, f, s in scripts],
        "metrics": job_metrics(world, arrays, recording.dt, falls, switches),
        **extra,
    }


def _advance(world: World, p: dict[str, Any], scripts: list[Interpreter], folder: Path
             ) -> None:
    """Step the world for the job's duration (rendering the video as it goes), or until its
    scripts end."""
    if p["until"] == "script":
        if not scripts:
            raise BatchError("until = \"script\", but neither the job nor its scene has a "
                             "script")
        end = world.tick + round((p["seconds"] or SCRIPT_LIMIT) / world.dt)
        while world.tick < end and not all(s.done for s in scripts):
            world.step()
        return
    seconds = p["seconds"] or world.scene.seconds
    if "mp4" in p["outputs"]:
        from twig.view.video import render_video

        render_video(world, folder / OUTPUTS["mp4"], seconds, size=tuple(p["video"]["size"]),
                     fps=p["video"]["fps"])
    else:
        world.run(seconds)


def _export(outputs: list[str], recording, folder: Path) -> None:
    """Write the requested files (the video and the trace are written while the world
    runs)."""
    from twig.export import write_bvh, write_gltf

    if "npz" in outputs:
        recording.save(folder / OUTPUTS["npz"])
    if "bvh" in outputs:
        write_bvh(recording, folder / OUTPUTS["bvh"])
    if "glb" in outputs:
        write_gltf(recording, folder / OUTPUTS["glb"])
