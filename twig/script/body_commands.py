"""Commands every body answers (``ball: where``, ``kid: move-node l_hand (0, 1.2, 0.3)``).

They sit directly on the physics layer: positions, velocities, touch and pain (Horswill 2009,
VI.E), forces and impulses, and node control (pins and linear set-point moves, VII.A). A
node-level command names one of the body's nodes (a humanoid's are ``head neck chest pelvis
l_shoulder l_elbow l_hand r_shoulder r_elbow r_hand l_hip l_knee l_foot r_hip r_knee r_foot``);
leaving the node out means the whole body.
"""

from __future__ import annotations

import math

import numpy as np

from twig.action import Action
from twig.commands import Json, NodeName, Vector, command
from twig.errors import ScriptError
from twig.physics import Body
from twig.script.watch import Watches

ARRIVED = 1e-3
"""A set-point move has arrived when its node is this close to the target, metres."""
WHOLE_BODY = NodeName("")
"""The node argument that means every node of the body."""
MAX_PUSH = 1000.0
"""Largest velocity change one push may cause, m/s."""


def _nodes(body: Body, node: str) -> slice | int:
    return body.node(node) if node else body.nodes


def _vec(v: np.ndarray) -> list[float]:
    return [round(float(x), 6) for x in v]


@command(on=Body)
def where(body: Body, node: NodeName = WHOLE_BODY) -> Json:
    """Position in metres: the centre of mass, or the named node's position.

    Parameters
    ----------
    node
        One node (leave out for the whole body).
    """
    return _vec(body.node_position(node) if node else body.centroid)


@command(on=Body)
def velocity(body: Body, node: NodeName = WHOLE_BODY) -> Json:
    """Velocity over the last tick in m/s: the mean of the nodes, or the named node's.

    Parameters
    ----------
    node
        One node (leave out for the whole body).
    """
    world = body.world
    return _vec(world.node_vel[body.node(node)] if node else body.velocity)


@command(on=Body)
def nodes(body: Body) -> Json:
    """Every node's position in metres, by node name."""
    return {name: _vec(p) for name, p in zip(body.node_names, body.positions, strict=True)}


@command(on=Body)
def touching(body: Body, within: float = 0.0) -> Json:
    """Objects that touched this one in the last ``within`` seconds (0: this tick), each
    with how many seconds ago (Horswill VI.E, tactile sensing).

    Parameters
    ----------
    within
        How far back to look, s (0: this tick only).
    """
    if not (math.isfinite(within) and within >= 0):
        raise ScriptError(f"within must be a number of seconds >= 0, got {within!r}")
    touched = body.world.touched(body, within=within)
    return {k: round(v, 6) for k, v in touched.items() if k != body.name}


@command(on=Body)
def pain(body: Body) -> Json:
    """Current pain level: joules of recent impacts over the pain threshold, decaying."""
    return round(body.world.pain(body), 6)


@command(on=Body)
def push(body: Body, vector: Vector, seconds: float = 0.0, node: NodeName = WHOLE_BODY
         ) -> Action:
    """Push the body (or one node): with ``seconds`` 0, ``vector`` is an impulse in N s that
    changes the velocity at once; otherwise a force in N applied for ``seconds``.

    A whole-body push moves every movable node alike (impulse or force divided by the total
    mass); static nodes do not move.

    Parameters
    ----------
    vector
        The impulse, N s (``seconds`` 0), or the force, N.
    seconds
        How long the force acts, s (0: an impulse, at once).
    node
        Push one node only (leave out for the whole body).
    """
    if not (math.isfinite(seconds) and seconds >= 0):
        raise ScriptError(f"seconds must be >= 0, got {seconds!r}")
    world = body.world
    sel = _nodes(body, node)
    inv = np.atleast_1d(world.node_inv_mass[sel])
    movable = inv > 0
    if not movable.any():
        raise ScriptError(f"{body.name}: {'node ' + node if node else 'the body'} is static "
                          "and cannot be pushed")
    per_mass = np.asarray(vector) / (1.0 / inv[movable]).sum()
    dv = np.where(movable[:, None], per_mass, 0.0)
    change = float(np.linalg.norm(per_mass)) * (seconds or 1.0)
    if change > MAX_PUSH:
        raise ScriptError(f"{body.name}: that push would change its velocity by "
                          f"{change:.3g} m/s (at most {MAX_PUSH:g})")
    action = Action("push", body.name, world.events)
    if seconds == 0.0:
        world.wake(body)
        world.node_prev[sel] -= (dv * world.dt).reshape(world.node_prev[sel].shape)
        action.succeed()
        return action
    ticks = max(1, round(seconds / world.dt))
    applied = {"count": 0, "tick": -1}

    def apply() -> None:
        if applied["tick"] != world.tick and applied["count"] < ticks:
            s = _nodes(body, node)
            world.nodes["acc"][s] += dv.reshape(world.nodes["acc"][s].shape)
            world.wake(body)
            applied["count"] += 1
            applied["tick"] = world.tick

    apply()
    return Watches.of(world).add(
        action, lambda: applied["count"] >= ticks and world.tick > applied["tick"], apply)


@command(on=Body)
def pin(body: Body, node: NodeName = WHOLE_BODY, at: Vector | None = None) -> None:
    """Hold the node (or the whole body) where it is, or move it to ``at`` and hold it.

    Parameters
    ----------
    node
        The node to pin (leave out for the whole body).
    at
        Where to move it first, m (leave out to pin it where it is).
    """
    body.world.lock_nodes(_nodes(body, node), at=at)


@command(on=Body)
def unpin(body: Body, node: NodeName = WHOLE_BODY) -> None:
    """Release a pinned node (or every node of the body).

    Parameters
    ----------
    node
        One node (leave out for the whole body).
    """
    body.world.unlock_nodes(_nodes(body, node))


@command(on=Body)
def move_node(body: Body, node: NodeName, position: Vector, seconds: float = 1.0,
              hold: bool = False) -> Action:
    """Move a node in a straight line to ``position`` (m) in ``seconds`` as a set-point
    (Horswill VII.A): the node is kinematic and drags the rest of the body by its links.
    Succeeds when it arrives; ``hold`` pins it there. Fails if it stops short (pinned or
    given another move).

    Parameters
    ----------
    node
        The node to move.
    position
        Where to, m.
    seconds
        How long the move takes, s (above 0).
    hold
        Pin the node where it arrives.
    """
    world = body.world
    index = body.node(node)
    if not (math.isfinite(seconds) and seconds > 0):
        raise ScriptError(f"seconds must be a positive number, got {seconds!r}")
    world.move_to(index, position, seconds)
    action = Action("move-node", body.name, world.events)
    goal = np.asarray(position, dtype=float)

    def arrived() -> bool | str:
        i = body.node(node)
        if world.is_moving(i):
            return False
        miss = float(np.linalg.norm(world.node_pos[i] - goal))
        if miss > ARRIVED:
            return f"{node} stopped {miss:.3f} m short of its target"
        if hold:
            world.lock_nodes(i)
        return True

    return Watches.of(world).add(action, arrived)
