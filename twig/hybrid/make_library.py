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

from twig.bodies.humanoid import NODE_NAMES
from twig.hybrid.blend import smoothstep
from twig.hybrid.clip import Clip, ClipRecorder, loop_cut, save_clip
from twig.hybrid.library import library_folder
from twig.world import World

FPS = 30.0
"""Frames per second of the clips."""


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


LIE_SECONDS, SIT_UP_SECONDS = 0.3, 1.5
"""The fall-recovery clip lies still this long, then sits up over this long, seconds."""
LIE_HEIGHT = 0.1
"""Lying, no node of the upper body is lower than this (m), unless it was sitting."""
UPPER = ("head", "neck", "chest", "pelvis", "l_shoulder", "l_elbow", "l_hand", "r_shoulder",
         "r_elbow", "r_hand")
"""The nodes that turn about the hips' axis as the body sits up."""


def fall_recovery() -> Clip:
    """Lying on the back to standing: a sit-up (the seated pose's upper body turned back about
    the hips' axis until it lies on the ground, and up again along smoothstep) and then
    standing up from the ground. A turn keeps every link at its length; the clip was made
    from a seated figure going limp, played backwards, and the limp legs leapt (the feet
    0.5 m in one frame, a shin stretched 28 % on playback)."""
    world, actor = _world()
    _until_done(world, actor.sit(), 1.0)
    recorder = ClipRecorder(actor)
    _until_done(world, actor.stand_up(), 0.5)
    rise = np.array(recorder.clip("rise").nodes)
    seated = rise[0]
    upper = [NODE_NAMES.index(n) for n in UPPER]
    l_hip, r_hip = seated[NODE_NAMES.index("l_hip")], seated[NODE_NAMES.index("r_hip")]
    axis = (l_hip - r_hip) / np.linalg.norm(l_hip - r_hip)
    centre = 0.5 * (l_hip + r_hip)
    # Back as far as it goes with no node under 10 cm (its radius off the ground) that was
    # not that low sitting.
    floor = np.minimum(seated[upper, 1], LIE_HEIGHT)
    lying = max(a for a in np.linspace(0.0, 0.5 * math.pi, 91)
                if (_turned(seated, upper, centre, axis, a)[upper, 1] >= floor).all())
    frames = []
    for k in range(round((LIE_SECONDS + SIT_UP_SECONDS) * FPS)):
        u = max(0.0, k / FPS - LIE_SECONDS) / SIT_UP_SECONDS
        frames.append(_turned(seated, upper, centre, axis, lying * (1.0 - smoothstep(u))))
    return Clip("fall-recovery", np.concatenate([np.array(frames), rise]), FPS)


def _turned(pose: np.ndarray, nodes: list[int], centre: np.ndarray, axis: np.ndarray,
            angle: float) -> np.ndarray:
    """``pose`` (16, 3) with ``nodes`` turned back by ``angle`` (rad) about the line through
    ``centre`` along the unit ``axis`` (Rodrigues; a left-hand turn about the hips'
    left-pointing axis tips the torso backwards)."""
    out = pose.copy()
    p = pose[nodes] - centre
    c, s = math.cos(-angle), math.sin(-angle)
    out[nodes] = centre + p * c + np.cross(axis, p) * s + np.outer(p @ axis, axis) * (1.0 - c)
    return out


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
