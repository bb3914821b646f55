"""Hybrid control as commands on characters (scripts, the server, Python):
``kid: play-clip wave``, ``kid: motion-graph-walk (5, 0, 3)``, ``kid: stop-clip``,
``kid: set-passive ball``, ``kid: controller``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Annotated, Any

import numpy as np

from twig.action import Action
from twig.background import Job, background
from twig.commands import Accepts, Json, Vector, command
from twig.errors import TwigError
from twig.hybrid.clip import Clip
from twig.hybrid.controllers import ClipPlayer, Tracking
from twig.hybrid.library import find_clip, library_names
from twig.hybrid.supervisor import supervisor
from twig.motor import Character
from twig.physics import Body

ClipName = Annotated[str, Accepts("named", library_names, ".bvh")]
"""A library clip (``walk``...) or a ``.bvh`` file's path."""
JointMap = Annotated[Any, Accepts("mapping")]
"""Node name -> BVH joint name (a JSON object of strings)."""


@command(on=Character)
def play_clip(self: Character, clip: ClipName, passive: Body | None = None, loops: int = 1,
              seconds: float = 0.0, threshold: float = 0.25, joint_map: JointMap = None,
              floor: float | None = None) -> Action:
    """Play a motion clip kinematically (a library clip: walk, walk-left, walk-right, run,
    idle, wave, kick, sit, fall-recovery; or a .bvh file's path; from Python also a Clip or
    a path object), blended in from the character's pose over 0.5 s, its root and facing
    aligned to the character. A ``passive`` object may touch the character without
    switching it to physics (the ball of a kick); other contacts hand it to dynamic tracking,
    and it blends back when its pose is within ``threshold`` (eq. 1, m) of the clip. Plays
    ``loops`` times (0: until stop-clip) or ``seconds``; succeeds when done.

    Parameters
    ----------
    clip
        A library clip's name or a ``.bvh`` file's path.
    passive
        An object whose contacts are part of the motion (the ball of a kick).
    loops
        How many times to play it (0: until ``stop-clip``).
    seconds
        Play for this long instead, s (0: by ``loops``).
    threshold
        Pose distance (eq. 1), m, under which dynamic tracking blends back to the clip.
    joint_map
        For a BVH file: node name to joint name (``{"head": "Skull"}``) for the joints its
        naming convention misses.
    floor
        For a BVH file: the height (m) taken off the clip (default: fitted so that its feet
        stand on the ground).
    """
    name = f"play-clip {getattr(clip, 'name', clip)}"
    if not (isinstance(loops, int) and loops >= 0):
        return Action.failed(name, self.name, f"loops must be 0 or more, got {loops!r}",
                             self.world.events)
    if not (isinstance(seconds, int | float) and seconds >= 0):
        return Action.failed(name, self.name, f"seconds must be 0 or more, got {seconds!r}",
                             self.world.events)
    if joint_map is not None and not (isinstance(joint_map, Mapping) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in joint_map.items())):
        return Action.failed(name, self.name, "joint_map must be an object of node name to "
                             f"joint name, got {joint_map!r}", self.world.events)
    try:
        motion = find_clip(clip, joint_map, floor)
    except TwigError as e:
        return Action.failed(name, self.name, str(e), self.world.events)
    player = ClipPlayer(motion, float(threshold), () if passive is None else (passive.name,), loops,
                        float(seconds), from_start=not motion.loop)
    return supervisor(self).play(player, Action(name, self.name, self.world.events))


GRAPH_CLIPS = ("walk", "walk-left", "walk-right")
"""The library clips ``motion-graph-walk`` builds its graph from."""
MAX_GRAPH_PATH = 10.0
"""Longest path (m, across the ground) a motion-graph walk synthesises."""
PLAN_SECONDS = 0.2
PLAN_SECONDS_PER_METRE = 0.1
"""The walk starts ``PLAN_SECONDS + PLAN_SECONDS_PER_METRE * length`` simulated seconds after
the command: the motion-graph search (about 0.1 s a metre) runs off the world's thread
meanwhile and its motion is taken at that tick, the same on any machine (:mod:`twig.background`).
"""


@command(on=Character)
def motion_graph_walk(self: Character, *points: Vector) -> Action:
    """Walk through ``points`` (control points of a cardinal spline that starts where the
    character is) with motion synthesised from a motion graph of the walk, walk-left and
    walk-right clips: Kovar-style transitions at local minima of the frame distances, a
    branch-and-bound search with a limited horizon, played kinematically. The character
    stands while the motion is planned (0.2 s plus 0.1 s per metre of path), then walks.

    Parameters
    ----------
    *points
        Points to walk through, [x, y, z] m (at least one; the path at most 10 m).
    """
    return walk_motion_graph(self, points)


def walk_motion_graph(character: Character, points: Sequence[Vector],
                      clips: Sequence[str] = GRAPH_CLIPS) -> Action:
    """:func:`motion_graph_walk` with a graph of other library ``clips``."""
    name = "motion-graph-walk"
    world, who = character.world, character.name
    if not points:
        return Action.failed(name, who, "give at least one point to walk through", world.events)
    targets = np.asarray(points, dtype=float)
    path = np.diff(np.vstack([character.hips, targets]), axis=0)
    length = float(np.linalg.norm(path[:, [0, 2]], axis=1).sum())
    if length > MAX_GRAPH_PATH:
        return Action.failed(name, who, f"the points make a path of {length:.3g} m; "
                             f"a motion-graph walk goes at most {MAX_GRAPH_PATH:g} m",
                             world.events)
    sup = supervisor(character)
    action = Action(name, who, world.events)

    def start(motion: Clip) -> None:
        if not character.alive:
            action.fail(f"{who} was removed before the walk started")
        elif not action.done:
            sup.play(ClipPlayer(motion, from_start=True), action)

    # Copies: the search runs while the world steps on (positions() is a view).
    plan = partial(_plan, tuple(clips), sup.positions().copy(), sup.velocities(), targets,
                   sup.height, sup.preset)
    delay = PLAN_SECONDS + PLAN_SECONDS_PER_METRE * length
    due = world.tick + max(1, round(delay / world.dt))
    background(world).submit(Job((name, character.id), plan, due, start, action.fail))
    return action


def _plan(clips: tuple[str, ...], pos: np.ndarray, vel: np.ndarray, points: np.ndarray,
          height: float, preset: str, job: Job) -> Clip:
    """The motion-graph search (worker thread): reads only its arguments."""
    from twig.hybrid.motion_graph import graph_of, synthesise

    return synthesise(graph_of(clips, height, preset), pos, vel, points, height, preset,
                      stopped=lambda: job.cancelled)


@command(on=Character)
def stop_clip(self: Character) -> None:
    """Stop the clip being played, or a motion-graph walk being planned (its action fails):
    twig's motor control takes over."""
    jobs = self.world.systems.get("background")
    if jobs is not None:
        jobs.cancel(("motion-graph-walk", self.id), "stopped")
    supervisor(self).end_goal("stopped")


@command(on=Character)
def set_passive(self: Character, item: Body, passive: bool = True) -> None:
    """Make ``item`` passive to this character (its contacts are part of the motion and do
    not switch a clip to physics) or, with ``passive=false``, active again. Directed: the
    item's own reaction is unchanged (DANCE 2.6).

    Parameters
    ----------
    item
        The object.
    passive
        Passive (true) or active again (false).
    """
    sup = supervisor(self)
    if passive:
        sup.passive.add(item.name)
    else:
        sup.passive.discard(item.name)


@command(on=Character)
def controller(self: Character) -> Json:
    """Who controls the character: the controller (``motor``, ``clip walk``, ``tracking
    walk``, ``reflex fall``, ``reflex guard``, ``limp``...), whether it is kinematic, the clip
    asked for and the objects passive to it."""
    sup = supervisor(self)
    active = sup.active
    tracked = active.player if isinstance(active, Tracking) else None
    return {"controller": active.name, "kinematic": active.kinematic,
            "clip": None if sup.goal is None else sup.goal.clip.name,
            "tracking": None if tracked is None else tracked.clip.name,
            "passive": sorted(sup.passive)}
