"""Bits of the per-node ``node_flags`` array (uint8).

Kernels read these module constants as compile-time integers.
"""

LOCKED = 1
"""Held at ``node_lock_pos``: a pin or a lock (Horswill 2009 VII.A); effective inverse mass 0."""

LOCK_ON_GROUND = 2
"""Becomes LOCKED at the point where it first touches a static plane (feet)."""

GROUNDED = 4
"""Touched a static plane during the last tick; selects ``node_damp_ground`` (Horswill VI.A)."""

MOVING = 8
"""Performing a linear set-point move toward ``node_move_target`` (Horswill VII.A)."""

ASLEEP = 16
"""Part of a sleeping body: not integrated, immovable in projections, until woken."""

DRIVEN = 32
"""Had a control acceleration or a set-point move this tick (set by the integration): its
contacts with other volumes grip by velocity-level friction only, so that static friction does
not hold back what a controller moves (see
:func:`twig.physics.collision.response.contact_friction`)."""

STIFF = 64
"""Its links have the last word in the tick: after the contacts and friction, the links of
its body get :data:`~twig.physics.final_sweeps.FINAL_SWEEPS` more sweeps when one of its
visible links, or a grab, is off its length by more than
:data:`~twig.physics.final_sweeps.FINAL_NEED`, or a striking fist touches it (Jakobsen 2001,
section 8: a different number of iterations for different constraints). The motor layer
sets it on its characters, whose driven (immovable) hands and feet and whose contacts with a
partner fight their short links."""

YIELDING = 128
"""A set-point node that gives way to characters: in a capsule contact with a STIFF node (of
another body, or of its own) it keeps its true inverse mass instead of counting as immovable
(a fist struck at 8 m/s, immovable, knocked a child at 8 m/s, and the doll it carried flew
at 7.8 m/s; driven through its own trunk, it knocked its owner down). The impact energy
still counts it as driven, so the blow hurts as before (``capsules._first_touch``). The
motor sets it on striking hands (``HAND_STRIKE``); it matters only while the node is
MOVING."""
