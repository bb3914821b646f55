"""What the viewer's inspection panel shows of hybrid control (registered on import): which
controller has the character, whether it is kinematic, and the clip asked for."""

from __future__ import annotations

from typing import Any

from twig.physics import Body, PhysicsWorld
from twig.view.registry import add_inspector


def hybrid_fields(world: PhysicsWorld, body: Body) -> dict[str, Any] | None:
    """Inspector: ``controller`` (name), ``kinematic`` (bool) and ``clip`` (the clip asked
    for, or ""), for characters under hybrid control."""
    system = world.systems.get("hybrid")
    sup = None if system is None else system.supervisors.get(body.id)
    if sup is None:
        return None
    return {"controller": sup.active.name, "kinematic": sup.active.kinematic,
            "clip": "" if sup.goal is None else sup.goal.clip.name}


add_inspector("hybrid", hybrid_fields)
