"""The motor layer's table: one row per controlled character (structure of arrays).

Commands (walk to, look at, reach ...) write the control columns; the motor kernel reads them
with the node arrays once per tick and writes node accelerations, set-point moves and locks, and
the state columns (gait phase, arrival, hand distance). Columns are documented with shapes and
units; node order is :data:`twig.bodies.humanoid.NODE_NAMES`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from twig.physics.columns import control, model, state

# Node slots (NODE_NAMES order).
HEAD, NECK, CHEST, PELVIS = 0, 1, 2, 3
L_SHOULDER, L_ELBOW, L_HAND, R_SHOULDER, R_ELBOW, R_HAND = 4, 5, 6, 7, 8, 9
L_HIP, L_KNEE, L_FOOT, R_HIP, R_KNEE, R_FOOT = 10, 11, 12, 13, 14, 15

# Modes.
PASSIVE = 0
"""No control: a rag doll."""
STAND = 1
"""Posture and gait control: standing, walking, turning."""
SIT = 2
"""Pelvis held at a seat, feet planted in front, torso upright."""

# Hand drives.
HAND_FREE = 0
"""The arm hangs and swings with the gait."""
HAND_DRIVE = 1
"""The hand moves to ``hand_target`` at up to ``hand_speed`` and stays there (kinematic)."""
HAND_PULL = 2
"""The hand is pulled toward ``hand_target`` by a spring force: it slides around what it
meets instead of shoving it (wrapping the arms round someone)."""
HAND_CARRY = 3
"""Like HAND_DRIVE, but ``hand_target`` is in the frame of the heading the pelvis holds and the
vertical (right, up, forward), in arm lengths from that side's shoulder: a pose the arm keeps
as the body moves and turns (carrying)."""
HAND_STRIKE = 4
"""Like HAND_DRIVE, but the fist gives way to the character it strikes (the node's
:data:`~twig.physics.flags.YIELDING` flag): a blow moves the struck body by what the
fist's mass can, not at the fist's speed."""

MOTOR_COLUMNS = {
    "body": model(np.int64, (), -1),
    "node": model(np.int64, (16,)),
    # Build (set once): metres, kilograms.
    "scale": model(np.float64, (), 1.0),           # height / 1.75 m
    "leg": model(np.float64, ()),                  # hip-knee + knee-foot rest lengths, m
    "arm": model(np.float64, ()),                  # shoulder-elbow + elbow-hand, m
    "head_len": model(np.float64, ()),             # neck-head, m
    "torso": model(np.float64, ()),                # hips' centre to shoulders' height, m
    "foot_r": model(np.float64, ()),               # foot node radius (rest height), m
    "m_support": model(np.float64, ()),            # mass the legs carry, kg
    # Control (written by commands).
    "mode": control(np.uint8, (), STAND),
    "walk": control(np.float64, (3,)),             # desired ground velocity, m/s
    "goal": control(np.float64, (3,)),             # walk-to target, m
    "goal_on": control(np.bool_, ()),
    "goal_speed": control(np.float64, (), 1.3),    # m/s
    "goal_stop": control(np.float64, (), 0.1),     # arrive within, m
    "face": control(np.float64, (3,)),             # desired facing (unit, horizontal)
    "face_on": control(np.bool_, ()),
    "gaze": control(np.float64, (3,)),             # gaze target, m
    "gaze_on": control(np.bool_, ()),
    "gaze_node": control(np.int64, (), -1),        # node the gaze follows (else ``gaze``)
    "gaze_uid": control(np.int64, (), -1),         # that node's permanent id
    "seat": control(np.float64, (3,)),             # pelvis target when sitting, m
    "hand_mode": control(np.uint8, (2,)),          # HAND_FREE, _DRIVE, _PULL, _CARRY (l, r)
    "hand_target": control(np.float64, (2, 3)),    # m
    "hand_speed": control(np.float64, (2,), 1.5),  # m/s
    "breath_amp": control(np.float64, (), 0.008),  # shoulder rise, m (per adult metre)
    "crouch": control(np.float64, ()),             # hips lowered by, m (reaching down)
    "bend": control(np.float64, ()),               # shoulders ahead of the hips by, m
    # State (written by the kernel).
    "walk_cmd": state(np.float64, (3,)),           # velocity being followed (rate-limited)
    "swing": state(np.uint8, (2,)),                # 1 while that foot steps
    "swing_t": state(np.float64, (2,)),            # s into the step
    "swing_T": state(np.float64, (2,)),            # step duration, s
    "swing_from": state(np.float64, (2, 3)),       # m
    "swing_to": state(np.float64, (2, 3)),         # m
    "kick": state(np.uint8, (2,)),                 # 1: this step is a kick aimed at swing_to
    "support": state(np.float64, ()),              # s of ground support left
    "breath": state(np.float64, ()),               # respiration phase, rad
    "arrived": state(np.bool_, ()),                # goal reached and stopped
    "heading": state(np.float64, ()),              # heading the pelvis holds, rad about +y
    "yaw_error": state(np.float64, ()),            # pelvis heading error, rad
    "hand_dist": state(np.float64, (2,)),          # hand to its target, m
    "steps": state(np.int64, ()),                  # steps taken
    "skate": state(np.float64, ()),                # planted-foot slide accumulated, m
    "gaze_dir": state(np.float64, (3,)),           # where the face points (unit)
    "shoulder_turn": state(np.float64, ()),        # shoulders' aimed turn from the pelvis, rad
}
"""Motor table columns (see the comments for units); a row per character. The build is the
motor's model (read-only in the kernel), the commands' targets its control, the gait's phase
and the like its state (:mod:`twig.physics.groups`)."""


class MotorNodes(NamedTuple):
    """The node table's columns the motor kernel reads and writes (``world.nodes``), by their
    names (a record of :mod:`twig.physics.records`: the model's, masses and radii, read-only).
    """

    pos: np.ndarray
    prev: np.ndarray
    acc: np.ndarray
    inv_mass: np.ndarray
    flags: np.ndarray
    radius: np.ndarray
    move_target: np.ndarray
    move_time: np.ndarray
    lock_pos: np.ndarray


class MotorRows(NamedTuple):
    """The motor table's columns the motor kernel reads and writes (:data:`MOTOR_COLUMNS`),
    by their names."""

    node: np.ndarray
    scale: np.ndarray
    leg: np.ndarray
    arm: np.ndarray
    head_len: np.ndarray
    torso: np.ndarray
    foot_r: np.ndarray
    m_support: np.ndarray
    mode: np.ndarray
    walk: np.ndarray
    goal: np.ndarray
    goal_on: np.ndarray
    goal_speed: np.ndarray
    goal_stop: np.ndarray
    face: np.ndarray
    face_on: np.ndarray
    gaze: np.ndarray
    gaze_on: np.ndarray
    gaze_node: np.ndarray
    seat: np.ndarray
    crouch: np.ndarray
    bend: np.ndarray
    hand_mode: np.ndarray
    hand_target: np.ndarray
    hand_speed: np.ndarray
    walk_cmd: np.ndarray
    swing: np.ndarray
    swing_t: np.ndarray
    swing_T: np.ndarray  # noqa: N815 (the column: the step duration T)
    swing_from: np.ndarray
    swing_to: np.ndarray
    kick: np.ndarray
    support: np.ndarray
    breath: np.ndarray
    arrived: np.ndarray
    heading: np.ndarray
    yaw_error: np.ndarray
    hand_dist: np.ndarray
    steps: np.ndarray
    gaze_dir: np.ndarray
    shoulder_turn: np.ndarray
