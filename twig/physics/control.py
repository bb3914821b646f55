"""Node control primitives (Horswill VII.A): velocities, control accelerations and forces,
teleports, set-point moves, locks and pins, damping. What motor control and commands use to
steer nodes; the tick's kernel does the moving.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from twig.errors import PhysicsError
from twig.physics import flags
from twig.physics.validate import as_indices, as_points, as_positive

if TYPE_CHECKING:
    from twig.physics.columns import Columns


def _cleared(flag: int) -> np.uint8:
    """Mask that clears ``flag`` in the uint8 ``node_flags``."""
    return np.uint8(0xFF ^ flag)



class NodeControl:
    """The node control methods of :class:`~twig.physics.PhysicsWorld` (mixed into it).

    ``nodes`` may be an index, a slice or an array of indices; velocities are m/s,
    accelerations m/s^2, forces N, positions m, damping factors per tick (eq. 2).
    """

    nodes: Columns
    dt: float

    def _node_sel(self, nodes: int | slice | ArrayLike) -> np.ndarray | slice:
        if isinstance(nodes, slice):
            return nodes
        return self._check_nodes(np.atleast_1d(as_indices(nodes, "nodes")), "nodes")

    def set_velocity(self, nodes: int | slice | ArrayLike, velocity: ArrayLike) -> None:
        """Give nodes a velocity (m/s) from now on: ``prev = pos - v dt`` (Horswill VII.A)."""
        sel = self._node_sel(nodes)
        v = as_points(velocity, "velocity")
        self.node_prev[sel] = self.node_pos[sel] - v * self.dt
        self.nodes["friction_hold"][sel] = 0.0  # friction's hold of the last tick no longer applies

    def set_acceleration(self, nodes: int | slice | ArrayLike, acceleration: ArrayLike) -> None:
        """Set the nodes' control acceleration (m/s^2, on top of gravity) for the next tick."""
        self.nodes["acc"][self._node_sel(nodes)] = as_points(acceleration, "acceleration")

    def add_force(self, nodes: int | slice | ArrayLike, force: ArrayLike) -> None:
        """Add a force (N) for the next tick: ``acc += F / m``."""
        sel = self._node_sel(nodes)
        f = as_points(force, "force")
        self.nodes["acc"][sel] += f * self.node_inv_mass[sel, None]

    def set_position(self, nodes: int | slice | ArrayLike, position: ArrayLike,
                     keep_velocity: bool = True) -> None:
        """Teleport nodes (metres); by default their velocity is kept, else zeroed."""
        sel = self._node_sel(nodes)
        p = as_points(position, "position")
        vel = self.node_pos[sel] - self.node_prev[sel]
        self.node_pos[sel] = p
        self.node_prev[sel] = self.node_pos[sel] - (vel if keep_velocity else 0.0)
        self.nodes["friction_hold"][sel] = 0.0
        self.nodes["lock_pos"][sel] = np.where(
            (self.node_flags[sel] & flags.LOCKED)[..., None] > 0, self.node_pos[sel],
            self.nodes["lock_pos"][sel])

    def move_to(self, node: int, target: ArrayLike, seconds: float) -> None:
        """Linear set-point move: arrive at ``target`` (m) in ``seconds``, then stop by itself.

        The node is kinematic while it moves (its links drag the rest of the body; Horswill
        VII.A). :meth:`is_moving` tells when it has arrived.
        """
        sel = self._node_sel(node)
        t = as_positive(seconds, "seconds")
        self.nodes["move_target"][sel] = as_points(target, "target").reshape(3)
        self.nodes["move_time"][sel] = t
        self.node_flags[sel] = (self.node_flags[sel] & _cleared(flags.LOCKED)) | flags.MOVING

    def is_moving(self, node: int) -> bool:
        """True while a set-point move of ``node`` is under way."""
        return bool(self.node_flags[self._node_sel(node)][0] & flags.MOVING)

    def lock_nodes(self, nodes: int | slice | ArrayLike, at: ArrayLike | None = None) -> None:
        """Hold nodes in place (at their position, or at ``at``): a lock or a pin."""
        sel = self._node_sel(nodes)
        if at is not None:
            self.set_position(sel, at, keep_velocity=False)
        self.nodes["lock_pos"][sel] = self.node_pos[sel]
        self.node_flags[sel] = (self.node_flags[sel] & _cleared(flags.MOVING)) | flags.LOCKED

    pin = lock_nodes

    def unlock_nodes(self, nodes: int | slice | ArrayLike) -> None:
        """Release locked or pinned nodes (they keep LOCK_ON_GROUND if it was set)."""
        sel = self._node_sel(nodes)
        self.node_flags[sel] &= _cleared(flags.LOCKED)

    def lock_on_ground(self, nodes: int | slice | ArrayLike, enabled: bool = True) -> None:
        """Make nodes lock themselves where they touch a static plane (Horswill VII.A)."""
        sel = self._node_sel(nodes)
        if enabled:
            self.node_flags[sel] |= flags.LOCK_ON_GROUND
        else:
            self.node_flags[sel] &= _cleared(flags.LOCK_ON_GROUND)

    def stiffen(self, nodes: int | slice | ArrayLike, enabled: bool = True) -> None:
        """Give the links of these nodes the last word in each tick (the STIFF flag: more
        sweeps after the contacts and friction, see :data:`~twig.physics.flags.STIFF`)."""
        sel = self._node_sel(nodes)
        if enabled:
            self.node_flags[sel] |= flags.STIFF
        else:
            self.node_flags[sel] &= _cleared(flags.STIFF)

    def set_damping(self, nodes: int | slice | ArrayLike, *, air: float | None = None,
                    ground: float | None = None, relative_to: int | None = None,
                    relative: float = 0.0) -> None:
        """Set damping factors per tick (eq. 2) and damping relative to another node."""
        sel = self._node_sel(nodes)
        for key, value in (("damp_air", air), ("damp_ground", ground), ("damp_rel", relative)):
            if value is not None and not 0.0 <= value < 1.0:
                raise PhysicsError(f"{key} must lie in [0, 1), got {value!r}")
        if air is not None:
            self.nodes.edit("damp_air")[sel] = air
        if ground is not None:
            self.nodes.edit("damp_ground")[sel] = ground
        if relative_to is not None:
            self._check_nodes(np.array([relative_to]), "relative_to")
        self.nodes["damp_ref"][sel] = -1 if relative_to is None else relative_to
        self.nodes["damp_rel"][sel] = relative if relative_to is not None else 0.0
