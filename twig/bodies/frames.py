"""Orientation derived from nodes (Horswill 2009, section V): a humanoid's body frames.

The figure has no rotation state: "positions and orientations of objects ... are determined
entirely by the positions of their associated nodes". These helpers compute, from the current
node positions, the frames and measures the motor layer steers by: the pelvis and shoulder
frames (right, up, forward), the facing angle, the centre of mass, and how far each leg and arm
is extended.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from twig.errors import PhysicsError
from twig.physics import Body


@dataclass(frozen=True)
class Frame:
    """An orthonormal frame: ``origin`` (m) and unit ``right``, ``up``, ``forward`` vectors
    (``right = forward x up``, the figure's own right)."""

    origin: np.ndarray
    right: np.ndarray
    up: np.ndarray
    forward: np.ndarray


def cross3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a x b`` for two 3-vectors: ``np.cross`` without its axis handling (it is called every
    tick by the motor tasks, where ``np.cross`` costs ten times as much)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def _unit(v: np.ndarray, what: str) -> np.ndarray:
    n = float(np.linalg.norm(v))
    if n < 1e-12:
        raise PhysicsError(f"{what} is undefined: its nodes coincide")
    return v / n


def _frame(body: Body, left: str, right: str, low: str, high: str) -> Frame:
    """Frame from a left-right pair (across) and a low-high pair (along the spine)."""
    p = {name: body.world.node_pos[body.node(name)] for name in (left, right, low, high)}
    across = p[left] - p[right]
    along = p[high] - p[low]
    forward = _unit(cross3(across, along), f"{body.name}: forward")
    up = _unit(along - (along @ forward) * forward, f"{body.name}: up")
    return Frame(0.5 * (p[left] + p[right]), cross3(forward, up), up, forward)


def pelvis_frame(body: Body) -> Frame:
    """The pelvis frame: across the hips, up the lower spine, origin between the hips."""
    return _frame(body, "l_hip", "r_hip", "pelvis", "neck")


def shoulder_frame(body: Body) -> Frame:
    """The shoulder frame: across the shoulders, up the upper spine, origin between them."""
    return _frame(body, "l_shoulder", "r_shoulder", "chest", "neck")


def facing(body: Body) -> float:
    """Heading of the pelvis in radians about +y (0 faces +z, as ``add_humanoid(facing=)``)."""
    f = pelvis_frame(body).forward
    return math.atan2(float(f[0]), float(f[2]))


def centre_of_mass(body: Body) -> np.ndarray:
    """Mass-weighted mean of the body's node positions, metres (static nodes count as
    immovable anchors and are left out, unless all are static)."""
    world = body.world
    inv = world.node_inv_mass[body.nodes]
    pos = world.node_pos[body.nodes]
    if not (inv > 0).any():
        return pos.mean(axis=0)
    m = np.where(inv > 0, 1.0 / np.where(inv > 0, inv, 1.0), 0.0)
    return (m[:, None] * pos).sum(axis=0) / m.sum()


def _extension(body: Body, a: str, b: str, c: str) -> float:
    """Distance from ``a`` to ``c`` over the length of the chain a-b-c (1 = straight)."""
    p = body.world.node_pos
    ia, ib, ic = body.node(a), body.node(b), body.node(c)
    chain = np.linalg.norm(p[ib] - p[ia]) + np.linalg.norm(p[ic] - p[ib])
    return float(np.linalg.norm(p[ic] - p[ia]) / chain)


def leg_extension(body: Body, side: str) -> float:
    """Hip-to-foot distance over the leg's length for side ``"l"`` or ``"r"`` (1 = straight)."""
    if side not in ("l", "r"):
        raise PhysicsError(f"side must be 'l' or 'r', got {side!r}")
    return _extension(body, f"{side}_hip", f"{side}_knee", f"{side}_foot")


def arm_reach(body: Body, side: str) -> float:
    """Shoulder-to-hand distance over the arm's length for side ``"l"`` or ``"r"``."""
    if side not in ("l", "r"):
        raise PhysicsError(f"side must be 'l' or 'r', got {side!r}")
    return _extension(body, f"{side}_shoulder", f"{side}_elbow", f"{side}_hand")
