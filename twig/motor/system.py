"""The motor system of a world: the character table, the per-tick motor call and the tasks
that carry durative commands to their end.

One :class:`MotorSystem` per world runs at the start of every tick (the *act* stage of
DESIGN.md's tick): it refreshes node indices after topology changes, lets each running task
update its targets (a walk toward a rolling ball follows the ball), calls the motor kernel once
for all characters, actuates the breathing shoulders, and lets tasks decide whether their action
has succeeded or failed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from twig.action import Action
from twig.bodies.frames import facing
from twig.bodies.humanoid import BRACES, NODE_NAMES
from twig.errors import TwigError, UnknownNameError
from twig.events import Event
from twig.motor.grips import close_links
from twig.motor.kernels import motor_tick
from twig.motor.state import MOTOR_COLUMNS, NECK, PASSIVE, STAND, MotorNodes, MotorRows
from twig.physics.columns import Columns
from twig.physics.records import pack

if TYPE_CHECKING:
    from twig.motor.grips import Grip
    from twig.physics import Body, Link, PhysicsWorld

_BREATH_BRACES = ("brace_neck_l_shoulder", "brace_neck_r_shoulder", "brace_chest_l_shoulder",
                  "brace_chest_r_shoulder")


class Task:
    """A durative command in progress: ``update`` runs before the motor kernel each tick,
    ``check`` after it; either may end ``action``. ``cancel`` undoes the task's control when it
    is replaced or fails. A ``persist``-ing task keeps updating after its action ended (a gaze
    that follows its target) until it is replaced or stopped."""

    persist = False

    def __init__(self, action: Action, channel: str) -> None:
        self.action = action
        self.channel = channel
        self.finished = False

    def update(self) -> None:
        """Refresh targets before the motor tick (default: nothing)."""

    def check(self) -> None:
        """Decide success or failure after the motor tick (default: nothing)."""

    def cancel(self, reason: str) -> None:
        """Stop: fail the action (if still running) with ``reason``; the task is dropped."""
        self.finished = True
        self.action.fail(reason)

    def abandon(self, reason: str) -> None:
        """Stop because the character was removed: as :meth:`cancel`, without touching the
        character (its rows are gone); tasks that changed other bodies undo that."""
        Task.cancel(self, reason)


def _interrupt(task: Task, reason: str) -> None:
    """Cancel ``task`` because something else stops it: its action (if still running) ends
    failed and ``interrupted``."""
    if not task.action.done:
        task.action.interrupted = True
    task.cancel(reason)


class MotorSystem:
    """All controlled characters of one world (``world.motor``)."""

    def __init__(self, world: PhysicsWorld) -> None:
        self.world = world
        self.table = Columns(MOTOR_COLUMNS)
        self._rows: dict[int, int] = {}
        self._version = -1
        self._tasks: dict[tuple[int, str], Task] = {}
        self.grips: dict[tuple[int, str], Grip] = {}
        self.joins: list[Link] = []
        """Closing links other than grips (a hug's hands joining), :mod:`twig.motor.grips`."""
        self._after: list[tuple[Callable[[], bool], Callable[[], None]]] = []
        self._breath_rows = np.zeros(0, dtype=np.int64)
        self._breath_geom = np.zeros((0, 2))
        self.autonomous_deciding = False
        """True while autonomous behaviours give commands (the behaviour system's decide
        stage): what they replace is said to be replaced by the character's own behaviours."""
        world.events.subscribe(self._on_removed, types=("removed",))
        world.stages.add("act", self.act)

    # ------------------------------------------------------------------ characters
    def add(self, body: Body, mode: int = STAND) -> int:
        """Control ``body`` (a humanoid) in ``mode`` (STAND or PASSIVE): returns its row. Its
        build sets the gait's scale."""
        world = self.world
        meta = world.body_record(body.id).meta
        length = meta["lengths"]
        nodes = np.array([body.node(n) for n in NODE_NAMES])
        inv = world.node_inv_mass[nodes]
        mass = np.where(inv > 0, 1.0 / np.where(inv > 0, inv, 1.0), 0.0)
        legs = [NODE_NAMES.index(n) for n in ("l_knee", "r_knee", "l_foot", "r_foot")]
        support = mass.sum() - mass[legs].sum() + 0.5 * mass[legs[:2]].sum()
        self.table.append(1, {
            "body": body.id, "node": nodes, "scale": meta["scale"],
            "leg": length["l_thigh"] + length["l_shin"],
            "arm": length["l_upper_arm"] + length["l_forearm"],
            "head_len": length["head"],
            "torso": float(world.node_pos[nodes[[4, 7]], 1].mean()
                           - world.node_pos[nodes[[10, 13]], 1].mean()),
            "foot_r": float(world.nodes["radius"][body.node("l_foot")]),
            "m_support": support, "heading": facing(body), "mode": mode,
            "gaze_dir": (math.sin(facing(body)), 0.0, math.cos(facing(body))),
        })
        meta["breath"] = breath_geometry(world.node_pos[nodes])
        world.set_collision(body, can_sleep=False)
        world.stiffen(body.nodes)
        self._version = -1
        return len(self.table) - 1

    def row(self, body: Body) -> int:
        """The table row of ``body`` (a controlled character); UnknownNameError if it is
        not one (any more)."""
        self._refresh()
        row = self._rows.get(body.id)
        if row is None:
            raise UnknownNameError(f"body #{body.id} is not a character under motor control "
                                   "(removed?)")
        return row

    def controls(self, body: Body) -> bool:
        """Whether ``body`` is a controlled character."""
        self._refresh()
        return body.id in self._rows

    def _refresh(self) -> None:
        """Drop rows of removed bodies and re-read node indices after topology changes."""
        world = self.world
        if self._version == world.topology_version:
            return
        alive = np.array([world.has_body(int(b)) for b in self.table["body"]], dtype=bool)
        if not alive.all():
            for key in [k for k in self._tasks if not world.has_body(k[0])]:
                self._tasks.pop(key).abandon("the character was removed")
            self.table.keep(alive)
        self._rows = {int(b): r for r, b in enumerate(self.table["body"])}
        for body_id, r in self._rows.items():
            start = world.body_record(body_id).start
            self.table.edit("node")[r] = start + np.arange(len(NODE_NAMES))
        # Gazes follow nodes by permanent id (node indices shift when bodies go).
        uid = self.table["gaze_uid"]
        at = np.searchsorted(world.nodes["uid"], uid)  # node uids only grow
        found = (uid >= 0) & (at < len(world.nodes))
        found[found] = world.nodes["uid"][at[found]] == uid[found]
        self.table["gaze_node"][:] = np.where(found, at, -1)
        self._breath_links()
        self._version = world.topology_version

    def _breath_links(self) -> None:
        """Rows of the shoulder braces and their geometry: the rest length for a shoulder
        raised by ``d`` is ``sqrt((p + d)^2 + q^2)``, with ``p`` the brace's extent along the
        torso's up at build and ``q`` across it."""
        world = self.world
        ids, geom = [], []
        for body_id in self.table["body"]:
            meta = world.body_record(int(body_id)).meta
            geom.extend(meta["breath"])
            ids.extend(meta["links"][name] for name in _BREATH_BRACES)
        self._breath_rows = world.link_rows(ids) if ids else np.zeros(0, dtype=np.int64)
        self._breath_geom = np.array(geom, dtype=np.float64).reshape(-1, 2)

    # ------------------------------------------------------------------ tasks
    def replaced(self, body: Body, by: str) -> str:
        """The reason a task of ``body`` ends when the command ``by`` replaces it."""
        if self.autonomous_deciding:
            return (f"replaced by {by} from {body.name}'s own behaviours ({body.name} is "
                    "autonomous: its behaviours command it every tick)")
        return f"replaced by {by}"

    def start(self, body: Body, channel: str, task: Task) -> Action:
        """Run ``task`` on ``body``'s ``channel`` ("legs", "left", "right", "gaze"...),
        cancelling the task it replaces."""
        old = self._tasks.pop((body.id, channel), None)
        if old is not None:
            _interrupt(old, self.replaced(body, task.action.name))
        if not task.finished and (not task.action.done or task.persist):
            self._tasks[(body.id, channel)] = task
        return task.action

    def start_hands(self, body: Body, hands: tuple[str, ...], task: Task) -> Action:
        """Run ``task`` on each hand channel in ``hands`` (cancelling what they ran)."""
        for side in hands:
            old = self._tasks.pop((body.id, side), None)
            if old is not None and old is not task:
                _interrupt(old, self.replaced(body, task.action.name))
        for side in hands:
            self._tasks[(body.id, side)] = task
        return task.action

    def stop(self, body: Body, channel: str, reason: str) -> None:
        """Cancel the task on ``body``'s ``channel``, if any."""
        old = self._tasks.pop((body.id, channel), None)
        if old is not None:
            _interrupt(old, reason)

    def _on_removed(self, event: Event) -> None:
        """A body was removed: its grips go, hands holding it let go (``release`` events),
        and a removed character's tasks end (their actions fail)."""
        gone, name = int(event["id"]), str(event["object"])
        for (holder, side), held in list(self.grips.items()):
            if holder == gone:
                del self.grips[(holder, side)]
            elif held.item == name:
                del self.grips[(holder, side)]
                self.world.remove_links(held.tethers)
                self.world.events.emit("release", agent=self.world.body_record(holder).name,
                                       object=name, hand=side)
        self._refresh()

    def after(self, condition: Callable[[], bool], then: Callable[[], None]) -> None:
        """Run ``then()`` at the first tick's act stage where ``condition()`` holds."""
        self._after.append((condition, then))

    @staticmethod
    def _end(task: Task, reason: str) -> None:
        """Cancel ``task``; abandon it if even that needs what was removed."""
        try:
            task.cancel(reason)
        except TwigError:
            task.abandon(reason)

    def task(self, body: Body, channel: str) -> Task | None:
        """The task on ``body``'s ``channel`` ("legs", "left", "right", "gaze"...), if any."""
        return self._tasks.get((body.id, channel))

    def tasks(self, body: Body) -> list[Task]:
        """The tasks on ``body``'s channels (a two-handed task once)."""
        out: list[Task] = []
        for (b, _), t in self._tasks.items():
            if b == body.id and t not in out:
                out.append(t)
        return out

    def running(self, body: Body) -> list[Action]:
        """The actions running on ``body``."""
        out: list[Action] = []
        for (b, _), t in self._tasks.items():
            if b == body.id and not t.action.done and t.action not in out:
                out.append(t.action)
        return out

    def _each_task(self, method: Callable[[Task], None]) -> None:
        """Call ``method(task)`` (``lambda t: t.update()``...) on each live task, then drop
        the tasks whose action ended."""
        seen: set[int] = set()
        for key, task in list(self._tasks.items()):
            if id(task) not in seen and not task.finished and (
                    not task.action.done or task.persist):
                seen.add(id(task))  # a two-handed task holds two channels: run it once
                try:
                    method(task)
                except TwigError as e:  # what it works on was removed, or a node renamed
                    self._end(task, str(e))
            over = task.finished or (task.action.done and not task.persist)
            if over and self._tasks.get(key) is task:
                del self._tasks[key]

    # ------------------------------------------------------------------ the tick
    def act(self) -> None:
        """The act stage: tasks' targets, one motor kernel call, breathing, tasks' checks."""
        if not len(self.table):
            return
        self._refresh()
        if self._after:
            waiting, self._after = self._after, []
            for condition, then in waiting:
                try:
                    if condition():
                        then()
                    else:
                        self._after.append((condition, then))
                except TwigError:
                    pass  # what it waited on was removed
        self._each_task(lambda task: task.update())
        close_links(self)
        world, t = self.world, self.table
        planes = world.model.planes
        walls = (planes["normal"], planes["offset"])
        motor_tick(pack(MotorNodes, world.nodes), pack(MotorRows, t), walls, world.dt)
        self._breathe()
        self._each_task(lambda task: task.check())

    def _breathe(self) -> None:
        """Respiration (VII.C): the shoulders rise and fall with a sinusoid, faster when
        walking, by actuating the shoulder braces' rest lengths."""
        if not len(self._breath_rows):
            return
        t = self.table
        active = np.repeat(t["mode"] != PASSIVE, 4)
        rise = np.repeat(t["breath_amp"] * t["scale"] * np.sin(t["breath"]), 4) * active
        p, q = self._breath_geom[:, 0], self._breath_geom[:, 1]
        self.world.set_link_rest(self._breath_rows, np.sqrt((p + rise) ** 2 + q ** 2))


def breath_geometry(pos: np.ndarray) -> list[tuple[float, float]]:
    """(p, q) of each breathing brace for a build pose ``pos`` ((16, 3), NODE_NAMES order):
    the brace's extent along the torso's up (chest to neck) and across it, metres."""
    up = pos[NECK] - pos[NODE_NAMES.index("chest")]
    up /= np.linalg.norm(up)
    out = []
    for name in _BREATH_BRACES:
        a, b = BRACES[name]
        v = pos[NODE_NAMES.index(b)] - pos[NODE_NAMES.index(a)]
        p = float(v @ up)
        out.append((p, float(np.linalg.norm(v - p * up))))
    return out

