"""How alike two poses are: DANCE eq. 1 (Shapiro, Pighin and Faloutsos, section 2.3).

``s_i = sum_n w_n |dq_n| + w'_n |dv_n|``: a weighted sum over the degrees of freedom of the
differences of position and velocity between the character's state and frame ``i`` of a
clip. Global translation is left out (positions are taken relative to the point between the
hips, on the ground plane, and turned so that the figure faces +z), so a clip can be played
anywhere and facing any way. The trunk and the hips weigh more than the wrists: they carry most
of the mass and decide where the centre of mass goes ("the position of the DOF of the
character's wrists is given less weight than the position of the DOF of the character's
trunk"). Heights stay in: lying down and standing are far apart.

Each node's three coordinates are one group here; its weight multiplies the Euclidean length
of its difference. Weights are normalised to sum to one, so ``s`` reads in metres: a weighted
mean distance of the nodes, plus :data:`VELOCITY_WEIGHT` seconds times a weighted mean
difference of their velocities.
"""

from __future__ import annotations

import numpy as np

from twig.bodies.humanoid import NODE_NAMES

_RAW = {"head": 0.5, "neck": 0.8, "chest": 1.0, "pelvis": 1.0,
        "l_shoulder": 0.6, "l_elbow": 0.3, "l_hand": 0.1,
        "r_shoulder": 0.6, "r_elbow": 0.3, "r_hand": 0.1,
        "l_hip": 1.0, "l_knee": 0.5, "l_foot": 0.4,
        "r_hip": 1.0, "r_knee": 0.5, "r_foot": 0.4}
WEIGHTS = np.array([_RAW[n] for n in NODE_NAMES]) / sum(_RAW.values())
"""Position weight of each node (NODE_NAMES order), summing to 1: trunk and hips 1, then
shoulders and neck, knees and feet, elbows, and the hands (wrists) least, 0.1."""
VELOCITY_WEIGHT = 0.1
"""Seconds: how much a velocity difference counts against a position difference (w' = 0.1 s
times w), so that 1 m/s of mismatch weighs like 10 cm."""

_L_HIP, _R_HIP = NODE_NAMES.index("l_hip"), NODE_NAMES.index("r_hip")


def heading(nodes: np.ndarray) -> np.ndarray:
    """Facing (...,) in radians about +y (0 faces +z) of poses (..., 16, 3), from the hip line
    alone (defined lying down as well as standing)."""
    across = nodes[..., _L_HIP, :] - nodes[..., _R_HIP, :]
    return np.arctan2(-across[..., 2], across[..., 0])


def root(nodes: np.ndarray) -> np.ndarray:
    """The point between the hips on the ground (..., 3): where a pose is, horizontally."""
    r = 0.5 * (nodes[..., _L_HIP, :] + nodes[..., _R_HIP, :])
    r[..., 1] = 0.0
    return r


def yaw_matrix(angle: np.ndarray | float) -> np.ndarray:
    """Rotations (..., 3, 3) about +y by ``angle`` radians (+z turns toward +x)."""
    a = np.asarray(angle, dtype=np.float64)
    c, s = np.cos(a), np.sin(a)
    if a.ndim == 0:  # the common case in the per-tick path: no stacking
        return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    z, o = np.zeros_like(a), np.ones_like(a)
    return np.stack([np.stack([c, z, s], -1), np.stack([z, o, z], -1),
                     np.stack([-s, z, c], -1)], -2)


def features(nodes: np.ndarray, vel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Poses (F, 16, 3) and velocities (F, 16, 3) seen from their own root: positions relative
    to :func:`root` and both turned to face +z (translation and facing removed)."""
    turn = np.swapaxes(yaw_matrix(heading(nodes)), -1, -2)
    rel = nodes - root(nodes)[..., None, :]
    return (np.einsum("...ij,...nj->...ni", turn, rel),
            np.einsum("...ij,...nj->...ni", turn, vel))


def similarity(pos_a: np.ndarray, vel_a: np.ndarray, pos_b: np.ndarray, vel_b: np.ndarray,
               weights: np.ndarray = WEIGHTS) -> np.ndarray:
    """Eq. 1 between feature arrays (from :func:`features`, broadcast over leading axes):
    ``sum_n w_n (|dq_n| + VELOCITY_WEIGHT |dv_n|)``, metres (lower is more alike)."""
    dq = np.linalg.norm(pos_a - pos_b, axis=-1)
    dv = np.linalg.norm(vel_a - vel_b, axis=-1)
    return (dq + VELOCITY_WEIGHT * dv) @ weights


def distance_matrix(pos_a: np.ndarray, vel_a: np.ndarray, pos_b: np.ndarray,
                    vel_b: np.ndarray) -> np.ndarray:
    """(Fa, Fb) eq. 1 between every frame of one clip's features and every frame of
    another's (Kovar's frame-distance matrix, for the motion graph)."""
    out = np.empty((len(pos_a), len(pos_b)))
    for i in range(len(pos_a)):  # row by row: (Fb, 16, 3) temporaries, not (Fa, Fb, 16, 3)
        out[i] = similarity(pos_a[i], vel_a[i], pos_b, vel_b)
    return out
