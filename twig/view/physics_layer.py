"""What the viewer shows of the physics: the inspector's pain, speed, touch and sleep, a
velocity overlay and the cloth mesh (registered on import)."""

from __future__ import annotations

from typing import Any

import numpy as np

from twig.errors import TwigError
from twig.physics import Body, PhysicsWorld
from twig.view.registry import Segments, add_inspector, add_mesh, add_overlay


def physics_fields(world: PhysicsWorld, body: Body) -> dict[str, Any]:
    """Built-in inspector: type, pain (J, decaying; Horswill VI.E), speed of the body's mean
    velocity (m/s), what other bodies touched it in the last half second, and whether it
    sleeps."""
    touched = set(world.touched(body, within=0.5)) - {body.name}
    return {
        "type": body.type,
        "pain": round(world.pain(body), 4),
        "speed": round(float(np.linalg.norm(body.velocity)), 4),
        "touching": sorted(touched),
        "asleep": world.is_asleep(body),
    }


VELOCITY_SECONDS = 0.5
"""The velocity overlay draws where each body's centre would be this many seconds ahead."""


def velocity_segments(world: PhysicsWorld) -> Segments | None:
    """Built-in overlay: each moving body's centroid and mean velocity (times 0.5 s)."""
    bodies = [b for b in world.bodies if (world.node_inv_mass[b.nodes] > 0).any()]
    if not bodies:
        return None
    start = np.array([b.centroid for b in bodies])
    vel = np.array([b.velocity for b in bodies])
    moving = np.linalg.norm(vel, axis=1) > 0.05
    return Segments(start[moving], start[moving] + VELOCITY_SECONDS * vel[moving])


def cloth_mesh(world: PhysicsWorld, body: Body) -> tuple[np.ndarray, np.ndarray]:
    """Built-in mesh of a cloth (:func:`twig.bodies.cloth.add_cloth`): its node grid, two
    triangles per cell."""
    pos = world.node_pos[body.nodes]
    n = round(len(pos) ** 0.5)
    if n * n != len(pos):
        raise TwigError(f"cloth {body.name!r} has {len(pos)} nodes, not a square grid")
    idx = np.arange(n * n).reshape(n, n)
    a, b = idx[:-1, :-1].ravel(), idx[:-1, 1:].ravel()
    c, d = idx[1:, :-1].ravel(), idx[1:, 1:].ravel()
    faces = np.concatenate([np.stack([a, c, b], axis=1), np.stack([b, c, d], axis=1)])
    return pos.copy(), faces.astype(np.uint32)


add_inspector("physics", physics_fields)
add_overlay("velocity", velocity_segments, color=(30, 30, 30))
add_mesh("cloth", cloth_mesh)
