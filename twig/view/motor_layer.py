"""What the viewer shows of the motor layer and the props (registered on import): each
character's mode, heading, walking speed, what its hands hold and its running actions in the
inspection panel; walk vectors and gaze lines as overlays; mesh props as meshes."""

from __future__ import annotations

from typing import Any

import numpy as np

from twig.bodies.mesh import body_mesh
from twig.physics import Body, PhysicsWorld
from twig.view.registry import Segments, add_inspector, add_mesh, add_overlay

GAZE_LENGTH = 0.6
"""Length of a drawn gaze line, metres."""
WALK_SECONDS = 0.7
"""A walk vector is drawn to where the hips head in this many seconds."""


def _motor(world: PhysicsWorld):
    return world.systems.get("motor")


def character_fields(world: PhysicsWorld, body: Body) -> dict[str, Any] | None:
    """Inspector: a character's motor state (Horswill VII)."""
    motor = _motor(world)
    if motor is None or not motor.controls(body):
        return None
    who = world.body(body.name)
    return {
        "mode": who.mode,
        "heading": round(who.heading, 3),
        "walking": round(float(np.linalg.norm(who.walk_velocity)), 3),
        "steps": who.steps,
        "holding": [f"{h}: {who.gripped(h)}" for h in ("left", "right") if who.gripped(h)],
        "actions": [a.name for a in who.actions],
    }


def walk_segments(world: PhysicsWorld) -> Segments | None:
    """Overlay: from each character's hips along the velocity its gait follows."""
    motor = _motor(world)
    if motor is None or not len(motor.table):
        return None
    t = motor.table
    hips = world.node_pos[t["node"][:, [10, 13]]].mean(axis=1)
    moving = np.linalg.norm(t["walk_cmd"], axis=1) > 0.05
    return Segments(hips[moving], hips[moving] + WALK_SECONDS * t["walk_cmd"][moving])


def gaze_segments(world: PhysicsWorld) -> Segments | None:
    """Overlay: from each character's head along where its face points."""
    motor = _motor(world)
    if motor is None or not len(motor.table):
        return None
    t = motor.table
    head = world.node_pos[t["node"][:, 0]]
    return Segments(head, head + GAZE_LENGTH * t["gaze_dir"])


add_inspector("motor", character_fields)
add_overlay("walk vectors", walk_segments, color=(20, 120, 40))
add_overlay("gaze lines", gaze_segments, color=(200, 120, 0))
add_mesh("box_model", body_mesh)
