"""Make the clip library (``twig/hybrid/clips/*.bvh``) from twig's own motor control.

Run ``python -m twig.hybrid.make_library [folder]``. Each clip is recorded from a 1.75 m
adult in an empty world (seed 0, so the files are the same every time) with
:class:`~twig.hybrid.clip.ClipRecorder` at 30 frames per second and saved with twig's BVH
exporter; gaits and breathing are cut to the cycle that loops best (eq. 1).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from twig.hybrid.clip import Clip, ClipRecorder, loop_cut, save_clip
from twig.hybrid.library import library_folder
from twig.world import World


def _world() -> tuple[World, object]:
    world = World(seed=0)
    return world, world.add_humanoid("actor", position=(0.0, 0.0, 0.0))


def gait(name: str, speed: float, turn_radius: float = 0.0) -> Clip:
    """A walk or run at ``speed`` m/s, straight or along a circle of ``turn_radius`` m
    (positive turns left), one cycle that loops."""
    world, actor = _world()
    if turn_radius:
        rate = speed / turn_radius

        def steer() -> None:
            a = rate * world.time
            actor.walk((speed * math.sin(a), 0.0, speed * math.cos(a)))

        world.stages.add("commands", steer)
    else:
        actor.walk((0.0, 0.0, speed))
    world.run(seconds=3.0)
    recorder = ClipRecorder(actor)
    world.run(seconds=3.0)
    return loop_cut(recorder.clip(name), 0.6, 1.6)


def idle() -> Clip:
    """Standing and breathing: one breath cycle."""
    world, actor = _world()
    world.run(seconds=1.0)
    recorder = ClipRecorder(actor)
    world.run(seconds=6.0)
    return loop_cut(recorder.clip("idle"), 3.0, 4.5)


def _until_done(world: World, action, extra: float, limit: float = 12.0) -> None:
    while not action.done and world.time < limit:
        world.step()
    world.run(seconds=extra)


def wave() -> Clip:
    world, actor = _world()
    world.run(seconds=0.5)
    recorder = ClipRecorder(actor)
    _until_done(world, actor.gesture("wave"), 0.3)
    return recorder.clip("wave")


def kick() -> Clip:
    """A kick of a ball just ahead (the short walk-up included)."""
    world, actor = _world()
    ball = world.add_ball("ball", position=(0.0, 0.11, 0.7))
    world.run(seconds=0.5)
    recorder = ClipRecorder(actor)
    _until_done(world, actor.kick(ball, toward=(0.0, 0.0, 6.0)), 0.3)
    return recorder.clip("kick")


def sit() -> Clip:
    """Sitting down on the ground."""
    world, actor = _world()
    world.run(seconds=0.5)
    recorder = ClipRecorder(actor)
    _until_done(world, actor.sit(), 0.3)
    return recorder.clip("sit")


def fall_recovery() -> Clip:
    """Lying on the back to standing: a sit-up (a limp fall back from sitting on the ground,
    played backwards at half speed) and then standing up from the ground."""
    seated = {}
    for phase in ("fall", "rise"):
        world, actor = _world()
        _until_done(world, actor.sit(), 1.0)
        recorder = ClipRecorder(actor)
        if phase == "fall":
            actor.go_limp()
            world.run(seconds=1.5)
        else:
            _until_done(world, actor.stand_up(), 0.5)
        seated[phase] = np.array(recorder.clip(phase).nodes)
    back = seated["fall"][::-1]
    moves = np.abs(np.diff(back, axis=0)).max(axis=(1, 2))
    back = back[max(int(np.argmax(moves > 0.004)) - 2, 0):]  # from where it stirs
    slow = np.empty((2 * len(back) - 1, *back.shape[1:]))  # half speed: midpoints between
    slow[::2] = back
    slow[1::2] = 0.5 * (back[:-1] + back[1:])
    nodes = np.concatenate([slow, seated["rise"][1:]])
    return Clip("fall-recovery", nodes, 30.0)


MAKERS: dict[str, Callable[[], Clip]] = {
    "walk": lambda: gait("walk", 1.3),
    "walk-left": lambda: replace(gait("walk-left", 1.1, 2.5), name="walk-left"),
    "walk-right": lambda: replace(gait("walk-right", 1.1, -2.5), name="walk-right"),
    "run": lambda: gait("run", 2.6),
    "idle": idle,
    "wave": wave,
    "kick": kick,
    "sit": sit,
    "fall-recovery": fall_recovery,
}
"""Clip name -> how it is made."""


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0]) if args else library_folder()
    folder.mkdir(parents=True, exist_ok=True)
    for name, make in MAKERS.items():
        clip = make()
        path = save_clip(clip, folder / f"{name}.bvh")
        print(f"{path}: {clip.frames} frames, {clip.duration:.2f} s, "
              f"{path.stat().st_size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
