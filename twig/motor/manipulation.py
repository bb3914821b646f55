"""Hold-for-use and writing (Horswill 2009, VIII): the object poses itself and drags the arm.

"HoldForUse is implemented by having the object compute its own desired pose and hover there,
dragging the character's arm along with it." The object's frame nodes are driven (set-point
moves each tick) to the pose its chart should have in front of the holder; the hand is linked
to the object and follows. The holder's facing is locked while it holds, which prevents the slow
spin the paper describes (the object's pose depends on the facing it drags).

Writing: the pen poses itself with its tip on the clipboard's ``front`` chart, tracing strokes
in chart coordinates and lifting off the surface (along the chart's y) between them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from twig.action import Action
from twig.bodies.charts import CHARTS_KEY, body_meta, chart
from twig.bodies.frames import cross3
from twig.motor.arms import ArmTask, stoop
from twig.motor.grips import let_go, take_hold
from twig.physics import Body, flags

if TYPE_CHECKING:
    from twig.motor.character import Character

CHECKMARK = ((-0.04, 0.0), (-0.015, -0.025), (0.035, 0.03))
"""One tick mark, chart (x, z) in metres relative to its place on the list."""
LIFT = 0.02
"""How far the pen rises off the surface between strokes, metres."""
CARRY_SPEED = 1.0
"""Fastest a held object moves toward its pose (m/s): taken from where it lies, it is carried
there, not put there in one tick."""
CARRY_TURN = 3.0
"""Fastest a held object turns toward its pose, rad/s."""
REACH_TIME = 4.0
"""Seconds the hand has to get to the object's grip node (stooping for it) and take hold:
a zero-length link forms when it arrives (:meth:`~twig.motor.arms.ArmTask.at_grip`) and
closes at the grips' speed, so the object never leaps into the hand."""
APPROACH = 0.1
"""A pen is brought this far (m) over the board's surface before it comes down to write."""


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    """(3, 3) rotation by ``angle`` (rad) about the unit ``axis`` (Rodrigues)."""
    x, y, z = axis
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)


def toward_pose(origin: np.ndarray, axes: np.ndarray, goal: np.ndarray, goal_axes: np.ndarray,
                step: float, turn: float) -> tuple[np.ndarray, np.ndarray]:
    """A rigid frame (``origin`` (3,) m, orthonormal ``axes`` rows (3, 3)) moved toward
    ``goal``/``goal_axes`` by at most ``step`` metres and turned toward them by at most
    ``turn`` radians (about the axis of the rotation between them), so it stays rigid."""
    gap = goal - origin
    dist = float(np.linalg.norm(gap))
    origin = goal.copy() if dist <= step else origin + gap * (step / dist)
    q = goal_axes.T @ axes  # the world rotation carrying axes onto goal_axes
    angle = math.acos(min(1.0, max(-1.0, (float(np.trace(q)) - 1.0) / 2.0)))
    if angle <= turn:
        return origin, goal_axes.copy()
    axis = np.array([q[2, 1] - q[1, 2], q[0, 2] - q[2, 0], q[1, 0] - q[0, 1]])
    norm = float(np.linalg.norm(axis))
    if norm < 1e-9:  # half a turn: any axis perpendicular to the first row's will do
        axis = cross3(axes[0], np.array((0.0, 1.0, 0.0)) if abs(axes[0, 1]) < 0.9
                      else np.array((1.0, 0.0, 0.0)))
        norm = float(np.linalg.norm(axis))
    return origin, axes @ _rotation(axis / norm, turn).T


def drive_nodes(world, nodes: np.ndarray, targets: np.ndarray) -> None:
    """Set-point moves that put ``nodes`` at ``targets`` ((n, 3), m) after one tick, with their
    true velocity (the motor kernel's two-tick trick for every node at once)."""
    pos = world.node_pos[nodes]
    world.nodes["move_target"][nodes] = pos + 2.0 * (targets - pos)
    world.nodes["move_time"][nodes] = 2.0 * world.dt
    world.node_flags[nodes] = (world.node_flags[nodes] & np.uint8(0xFF ^ flags.LOCKED)) \
        | flags.MOVING


def release_nodes(world, nodes: np.ndarray) -> None:
    """End the set-point moves of ``nodes``: the object is dynamic again."""
    world.node_flags[nodes] &= np.uint8(0xFF ^ flags.MOVING)
    world.nodes["move_time"][nodes] = 0.0


def chart_nodes(body: Body, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The frame nodes of chart ``name`` of ``body`` (global indices) and their chart-frame
    coordinates ((4, 3), m)."""
    spec = body_meta(body)[CHARTS_KEY][name]
    nodes = body.nodes.start + np.array(spec["frame"])
    return nodes, np.array(spec["local"])


def _frame(along: np.ndarray) -> np.ndarray:
    """(3, 3) orthonormal rows, the first ``along`` (a unit vector) and the second as near the
    vertical as it allows: the frame of a rod (a pen) pointing that way."""
    up = np.array((0.0, 1.0, 0.0)) if abs(along[1]) < 0.9 else np.array((1.0, 0.0, 0.0))
    side = cross3(along, up)
    side /= np.linalg.norm(side)
    return np.array([along, cross3(side, along), side])


class HoldForUse(ArmTask):
    """Hold ``item`` by its chart ``chart_name`` in front of the chest, facing the holder
    (tilted ``tilt`` radians back from upright), the hand linked to the nearest frame node."""

    persist = True

    def __init__(self, who: Character, action: Action, side: str, item: Body,
                 chart_name: str, tilt: float) -> None:
        super().__init__(who, action, (side,))
        self.side = side
        self.item = item
        self.chart_name = chart_name
        nodes, self.local = chart_nodes(item, chart_name)
        self.frame = nodes - item.nodes.start  # node indices shift when earlier bodies go
        self.tilt = tilt
        t, r = who.motor_table, who.motor_row
        t["face"][r] = (math.sin(who.heading), 0.0, math.cos(who.heading))
        t["face_on"][r] = True  # the facing lock (VIII): no slow spin
        hand = who.node(f"{side[0]}_hand")
        gaps = np.linalg.norm(who.world.node_pos[nodes] - who.world.node_pos[hand], axis=1)
        self.grip_local = int(self.frame[int(np.argmin(gaps))])
        self.gripped = False
        self.carried: tuple[np.ndarray, np.ndarray] | None = None  # the pose it has reached

    @property
    def nodes(self) -> np.ndarray:
        """The chart's frame nodes now (UnknownNameError once the item is removed)."""
        return self.item.nodes.start + self.frame

    @property
    def grip(self) -> int:
        """The item's node the hand holds."""
        return self.item.nodes.start + self.grip_local

    def pose(self) -> tuple[np.ndarray, np.ndarray]:
        """Where the chart's origin and axes (rows x, y, z) should be now."""
        who = self.who
        heading = who.motor_table["face"][who.motor_row]
        forward = np.array([heading[0], 0.0, heading[2]])
        up = np.array([0.0, 1.0, 0.0])
        c, s = math.cos(self.tilt), math.sin(self.tilt)
        normal = -forward * c + up * s      # the face looks back at the holder, tipped up
        along = forward * s + up * c        # the chart's z: away from the holder and up
        across = cross3(normal, along)
        origin = (who.node_position("chest") + forward * 0.32 * who.scale
                  - up * 0.05 * who.scale)
        return origin, np.array([across, normal, along])

    def update(self) -> None:
        origin, axes = self.pose()
        world = self.who.world
        if not self.gripped:
            # First bring the hand to its grip (stooping for it), then the object hovers
            # into place.
            point = world.node_pos[self.grip].copy()
            stoop(self.who, point, self.side)
            self.drive(self.side, point)
        else:
            # Carried from where it lay toward the pose, never faster than the carry limits.
            dt = world.dt
            self.carried = toward_pose(*self.carried, origin, axes, CARRY_SPEED * dt,
                                       CARRY_TURN * dt)
            drive_nodes(world, self.nodes, self.carried[0] + self.local @ self.carried[1])

    def check(self) -> None:
        super().check()
        if not self.gripped and self.at_grip(self.side, self.item, self.grip):
            now = chart(self.item, self.chart_name)
            self.carried = (now.origin, now.axes)
            take_hold(self.who, self.side, self.grip, self.item)
            self.free(self.side)
            stoop(self.who, None)
            self.gripped = True
        if self.gripped and not self.action.done and self.elapsed > 0.5:
            self.action.succeed()
        elif not self.gripped and self.elapsed > REACH_TIME:
            self.cancel(f"could not take hold of {self.item.name} in {REACH_TIME:g} s: "
                        f"{self.short_of(self.side, self.who.world.node_pos[self.grip])}")

    def cancel(self, reason: str) -> None:
        if self.item.alive:
            release_nodes(self.who.world, self.nodes)
        self.who.motor_table["face_on"][self.who.motor_row] = False
        let_go(self.who, self.side)
        super().cancel(reason)


class Write(ArmTask):
    """Write tick marks with ``pen`` on ``board``'s ``front`` chart: the pen poses itself
    (tip on the surface, tilted toward the writer) and drags the writing hand."""

    persist = True

    def __init__(self, who: Character, action: Action, side: str, pen: Body, board: Body,
                 marks: int, seconds_per_mark: float = 1.2) -> None:
        super().__init__(who, action, (side,))
        self.side = side
        self.pen = pen
        self.board = board
        self.marks = marks
        self.per_mark = seconds_per_mark
        self.length = float(np.linalg.norm(pen.node_position("top") - pen.node_position("tip")))
        self.gripped = False
        self.writing = False  # True while the tip is on the surface, drawing
        self.carried: tuple[np.ndarray, np.ndarray] | None = None  # the tip and top reached
        self.arrived = False  # the tip has come over the board

    @property
    def tip(self) -> int:
        """The pen's tip node (indices shift when earlier bodies go)."""
        return self.pen.node("tip")

    @property
    def top(self) -> int:
        return self.pen.node("top")

    def tip_local(self) -> tuple[np.ndarray, bool]:
        """The tip's chart coordinates now, and whether it is on the surface."""
        t = self.elapsed - 0.8  # time to take the pen and bring it over
        if t < 0.0:
            return np.array([0.0, 0.06, 0.0]), False
        k = min(int(t / self.per_mark), self.marks - 1)
        u = min(t / self.per_mark - k, 1.0)
        row = 0.06 - 0.05 * k
        pts = [np.array([x, 0.0, row + z]) for x, z in CHECKMARK]
        if u < 0.1 or u > 0.85:  # lifted: move to the start of the next mark
            start = pts[0] + (0.0, LIFT, 0.0)
            return start, False
        v = (u - 0.1) / 0.75 * 2.0
        seg = min(int(v), 1)
        return pts[seg] + (v - seg) * (pts[seg + 1] - pts[seg]), True

    def _approach(self, front, local: np.ndarray) -> tuple[np.ndarray, bool]:
        """Where the tip goes while it is brought to the board (world, m), and whether it
        has arrived over its first stroke: round the board's top edge when it comes from
        behind the board, then over the surface, then down onto it (never through it)."""
        x, y, z = front.from_world(self.carried[0])
        ex, ez = front.extent
        if y < 0.5 * APPROACH:
            if abs(x) <= ex + 0.05 and abs(z) <= ez + 0.05:
                return front.to_world((x, y, ez + 0.08)), False  # past the top edge
            return front.to_world((x, APPROACH, z)), False  # out in front
        over = front.to_world(local + np.array((0.0, APPROACH, 0.0)))
        return over, bool(np.linalg.norm(self.carried[0] - over) < 0.01)

    def update(self) -> None:
        world = self.who.world
        if not self.gripped:
            point = world.node_pos[self.top].copy()
            stoop(self.who, point, self.side)
            self.drive(self.side, point)
            return
        front = chart(self.board, "front")
        local, drawing = self.tip_local()
        tip = front.to_world(local)
        over = self.arrived  # over the board since an earlier tick: on to the strokes
        if not over:
            tip, self.arrived = self._approach(front, local)
        toward_writer = self.who.node_position("chest") - tip
        toward_writer -= (toward_writer @ front.normal) * front.normal
        toward_writer /= max(float(np.linalg.norm(toward_writer)), 1e-9)
        axis = 0.75 * front.normal + 0.66 * toward_writer
        axis /= np.linalg.norm(axis)
        # Carried from where it lay (and between strokes) no faster than the carry limits:
        # the pen is a frame with its first axis along it, centred between tip and top.
        was_tip, was_top = self.carried
        along = (was_top - was_tip) / max(float(np.linalg.norm(was_top - was_tip)), 1e-9)
        frame = toward_pose(0.5 * (was_tip + was_top), _frame(along),
                            tip + 0.5 * self.length * axis, _frame(axis),
                            CARRY_SPEED * world.dt, CARRY_TURN * world.dt)
        half = 0.5 * self.length * frame[1][0]
        self.carried = (frame[0] - half, frame[0] + half)
        self.writing = drawing and over and \
            bool(np.linalg.norm(self.carried[0] - tip) < 1e-3)
        drive_nodes(world, np.array([self.tip, self.top]), np.array(self.carried))

    def check(self) -> None:
        super().check()
        world = self.who.world
        if not self.gripped:
            if self.at_grip(self.side, self.pen, self.top):
                self.carried = (world.node_pos[self.tip].copy(), world.node_pos[self.top].copy())
                take_hold(self.who, self.side, self.top, self.pen)
                self.free(self.side)
                stoop(self.who, None)
                self.gripped = True
            elif self.elapsed > REACH_TIME:
                self.cancel(f"could not take hold of {self.pen.name} in {REACH_TIME:g} s: "
                            f"{self.short_of(self.side, world.node_pos[self.top])}")
        elif self.elapsed > 0.8 + self.marks * self.per_mark and not self.action.done:
            self.writing = False
            self.action.succeed()

    def cancel(self, reason: str) -> None:
        if self.pen.alive:
            release_nodes(self.who.world, np.array([self.tip, self.top]))
        let_go(self.who, self.side)
        super().cancel(reason)
