"""Cameras that frame the action: an overview of every moving body, or one followed body.

Used by the live viewer's camera presets and by the video renderer, which smooths the framing
over time so the picture does not jitter with every falling limb.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from twig.physics import Body, PhysicsWorld

FOV_Y = math.radians(50.0)
"""Vertical field of view of the video camera and the viewer's presets."""
AZIMUTH = math.radians(30.0)
"""Default view: from in front (+z, where characters face by default), turned 30 degrees
toward +x ..."""
ELEVATION = math.radians(22.0)
"""... and looking down 22 degrees."""
MIN_RADIUS = 1.2
"""Half-height (m) of the smallest region an overview frames (one figure fills it)."""
MAX_RADIUS = 40.0
"""Largest half-size (m) of the region an overview frames (a body flung far is let go)."""
PAD = 0.3
"""Margin (m) around the nodes: capsules, and boxes whose corners lie beyond their frame
nodes."""
FOLLOW_DISTANCE = 3.5
"""Distance (m) of the camera from a followed body when the follow preset is chosen."""


@dataclass(frozen=True)
class Camera:
    """A perspective camera: ``eye`` and ``target`` (3,) m, vertical ``fov_y`` in radians,
    y up."""

    eye: np.ndarray
    target: np.ndarray
    fov_y: float = FOV_Y


def view_direction(azimuth: float = AZIMUTH, elevation: float = ELEVATION) -> np.ndarray:
    """Unit vector from the target toward the eye."""
    return np.array([math.sin(azimuth) * math.cos(elevation), math.sin(elevation),
                     math.cos(azimuth) * math.cos(elevation)])


def action_points(world: PhysicsWorld) -> tuple[np.ndarray, np.ndarray]:
    """The points to frame (every movable node; every node when none moves; the origin in
    an empty world), (n, 3) m, and the centre of their bounding box, clamped to
    ``MAX_RADIUS`` around it."""
    pos = world.node_pos
    movable = world.node_inv_mass > 0
    points = pos[movable] if movable.any() else pos
    if not len(points):
        points = np.zeros((1, 3))
    centre = 0.5 * (points.min(axis=0) + points.max(axis=0))
    return np.clip(points, centre - MAX_RADIUS, centre + MAX_RADIUS), centre


def framing_distance(points: np.ndarray, centre: np.ndarray, direction: np.ndarray,
                     aspect: float, fov_y: float = FOV_Y) -> float:
    """Distance (m) from ``centre``, along ``direction``, at which every point (grown by
    ``PAD``) is in view, with a 10 % margin; at least enough to show ``MIN_RADIUS``."""
    forward = -direction
    right = np.cross(forward, (0.0, 1.0, 0.0))
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    rel = points - centre
    tan_y = math.tan(fov_y / 2.0) / 1.1
    tan_x = tan_y * aspect
    depth = rel @ forward
    need = np.maximum((np.abs(rel @ right) + PAD) / tan_x, (np.abs(rel @ up) + PAD) / tan_y)
    return float(max((need - depth).max(), MIN_RADIUS / tan_y))


def overview(world: PhysicsWorld, aspect: float, direction: np.ndarray | None = None) -> Camera:
    """A camera that frames every movable body from ``direction`` (default
    :func:`view_direction`)."""
    points, centre = action_points(world)
    d = view_direction() if direction is None else direction
    return Camera(centre + d * framing_distance(points, centre, d, aspect), centre)


def follow_target(body: Body) -> np.ndarray:
    """The point a camera following ``body`` looks at: its centroid (m)."""
    return body.centroid


class SmoothCamera:
    """An overview camera whose target and distance follow the action with a time constant
    of ``tau`` seconds (first frame: exact), for video.

    Parameters
    ----------
    aspect
        Width / height of the picture.
    follow
        A body to keep in the centre instead of the whole scene (None: overview).
    """

    def __init__(self, aspect: float, follow: Body | None = None, tau: float = 0.6) -> None:
        self.aspect = aspect
        self.follow = follow
        self.tau = tau
        self._target: np.ndarray | None = None
        self._distance = 0.0

    def update(self, world: PhysicsWorld, seconds: float) -> Camera:
        """The camera after ``seconds`` more of simulated time."""
        if self.follow is not None:
            target, distance = follow_target(self.follow), FOLLOW_DISTANCE
        else:
            points, target = action_points(world)
            distance = framing_distance(points, target, view_direction(), self.aspect)
        if self._target is None:
            self._target, self._distance = target, distance
        else:
            k = 1.0 - math.exp(-seconds / self.tau)
            self._target = self._target + k * (target - self._target)
            self._distance += k * (distance - self._distance)
        return Camera(self._target + view_direction() * self._distance, self._target.copy())
