"""``MotorBody``: what a character under motor control shows (its mode, hips, heading,
steps, what its hands hold...), read from its row of the motor table, and the plumbing its
commands share; :class:`~twig.motor.character.Character` adds the commands."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from twig.action import Action
from twig.bodies.frames import facing, pelvis_frame
from twig.motor.hugs import Hug
from twig.motor.state import PASSIVE, STAND
from twig.physics import Body

if TYPE_CHECKING:
    from twig.motor.system import MotorSystem
    from twig.physics.columns import Columns


class MotorBody(Body):
    """A humanoid's handle under motor control, without its commands (see
    :class:`~twig.motor.character.Character`). Like every handle it owns no state."""

    # ------------------------------------------------------------------ plumbing
    @property
    def motor(self) -> MotorSystem:
        return self.world.motor

    @property
    def motor_table(self) -> Columns:
        """The motor table (``world.motor.table``, :data:`~twig.motor.state.MOTOR_COLUMNS`):
        tasks and controllers write its control columns at :attr:`motor_row`."""
        return self.world.motor.table

    @property
    def motor_row(self) -> int:
        """This character's row of :attr:`motor_table` (looked up on each use: rows move
        when other characters go)."""
        return self.world.motor.row(self)

    def _action(self, name: str) -> Action:
        return Action(name, self.name, self.world.events)

    def _failed(self, name: str, reason: str) -> Action:
        return Action.failed(name, self.name, reason, self.world.events)

    # ------------------------------------------------------------------ what a viewer sees
    @property
    def hips(self) -> np.ndarray:
        """Centre of the hips, metres, shape (3,)."""
        return 0.5 * (self.node_position("l_hip") + self.node_position("r_hip"))

    @property
    def heading(self) -> float:
        """Facing of the pelvis, radians about +y (0 faces +z)."""
        return facing(self)

    @property
    def behavior(self) -> str | None:
        """The current top-level behaviour (``"play-ball"``) if the character is autonomous
        (:mod:`twig.behavior`), else None. Asked of the world's behaviour system, if any."""
        system = self.world.systems.get("behavior")
        return None if system is None else system.behavior_of(self)

    @property
    def pain(self) -> float:
        """Current pain level, joules of recent impacts (decaying)."""
        return self.world.pain(self)

    @property
    def mode(self) -> str:
        """``"standing"`` (posture and gait on), ``"sitting"`` or ``"limp"``."""
        mode = int(self.motor_table["mode"][self.motor_row])
        return {PASSIVE: "limp", STAND: "standing"}.get(mode, "sitting")

    @property
    def walk_velocity(self) -> np.ndarray:
        """The ground velocity the gait is following now, m/s, shape (3,)."""
        return self.motor_table["walk_cmd"][self.motor_row].copy()

    @property
    def gaze_direction(self) -> np.ndarray:
        """Where the face points (unit vector): the gaze target, else the walk direction."""
        return self.motor_table["gaze_dir"][self.motor_row].copy()

    @property
    def steps(self) -> int:
        """Steps taken so far."""
        return int(self.motor_table["steps"][self.motor_row])

    @property
    def actions(self) -> list[Action]:
        """The actions running now."""
        return self.motor.running(self)

    @property
    def scale(self) -> float:
        """Size relative to the 1.75 m adult."""
        return float(self.motor_table["scale"][self.motor_row])

    @property
    def arm_length(self) -> float:
        """Shoulder to elbow to hand, metres."""
        return float(self.motor_table["arm"][self.motor_row])

    @property
    def hugging(self) -> bool:
        """Whether a hug is under way (until its ``end`` event, after the hands joined)."""
        return any(isinstance(t, Hug) and not t.finished for t in self.motor.tasks(self))

    def gripped(self, hand: str) -> str | None:
        """Name of what the ``"left"`` or ``"right"`` hand holds (a grab link), or None."""
        held = self.motor.grips.get((self.id, hand))
        return None if held is None else held.item

    @property
    def upright(self) -> bool:
        """Whether the figure stands: hips above half the leg length, torso within 60 degrees
        of vertical (a stooping or running figure still stands)."""
        frame = pelvis_frame(self)
        leg = self.motor_table["leg"][self.motor_row]
        return bool(self.hips[1] > 0.5 * leg and frame.up[1] > math.cos(math.radians(60)))
