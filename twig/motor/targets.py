"""What a command may aim at: a point, a body, a body's node, or a name, resolved to a function
that gives the current target point each tick (a walk toward a rolling ball follows the ball).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from twig.errors import TwigError, UnknownNameError

if TYPE_CHECKING:
    from twig.physics import Body, PhysicsWorld

Target = Any
"""What a command aims at: a point ``(x, y, z)`` in metres, a body, a body name (``"ball"``)
or a node name (``"kid/l_hand"``); anything else fails the command with a reason (scripts pass
names and vectors, so the type is checked here, not by the command registry)."""


class TargetError(TwigError):
    """A command's target does not exist or is not a point."""


def resolve(world: PhysicsWorld, target: Target) -> tuple[Callable[[], np.ndarray], str]:
    """A function returning the target's current position (m, shape (3,)) and a description
    for messages. Bodies are followed by their centroid (a humanoid by its hips' centre);
    raises :class:`TargetError` naming what was wrong."""
    from twig.physics import Body

    if isinstance(target, str):
        try:
            if "/" in target:
                node = world.node_index(target)
                return (lambda: world.node_pos[node].copy()), target
            target = world.body(target)
        except UnknownNameError as e:
            raise TargetError(f"no target {target!r}: {e}") from None
    if isinstance(target, Body):
        body = target
        if not body.alive:
            raise TargetError(f"target {body!r} has been removed")
        if body.type == "humanoid":
            hips = [body.node("l_hip"), body.node("r_hip")]
            return (lambda: world.node_pos[hips].mean(axis=0)), body.name
        return (lambda: body.centroid), body.name
    try:
        point = np.asarray(target, dtype=np.float64).reshape(3)
    except (TypeError, ValueError):
        raise TargetError(f"a target is a point (x, y, z), a body or a name; got {target!r}"
                          ) from None
    if not np.isfinite(point).all():
        raise TargetError(f"target point must be finite, got {point.tolist()}")
    return (lambda: point), f"({point[0]:g}, {point[1]:g}, {point[2]:g})"


def target_body(world: PhysicsWorld, target: Target) -> Body:
    """The body a target names (objects to grab, hug or hold), or :class:`TargetError`."""
    from twig.physics import Body

    if isinstance(target, Body):
        return target
    if isinstance(target, str):
        try:
            return world.body(target.split("/")[0])
        except UnknownNameError as e:
            raise TargetError(f"no object {target!r}: {e}") from None
    raise TargetError(f"expected an object (a body or its name), got {target!r}")


def look_node(world: PhysicsWorld, target: Target) -> tuple[int, np.ndarray]:
    """Where to look: a node to follow (another character's head, a named node, the node of
    an object nearest its centre) and its position now, or -1 and a fixed point."""
    from twig.physics import Body

    if isinstance(target, str) and "/" in target:
        where, _ = resolve(world, target)
        return world.node_index(target), where()
    if isinstance(target, str | Body):
        body = target_body(world, target)
        if body.type == "humanoid":
            node = body.node("head")
        else:
            pos = world.node_pos[body.nodes]
            node = body.nodes.start + int(np.argmin(np.linalg.norm(pos - body.centroid, axis=1)))
        return node, world.node_pos[node].copy()
    where, _ = resolve(world, target)
    return -1, where()
