"""The playground merry-go-round: 18 nodes, 41 links, 25 of them visible bars (Horswill 2009,
section V), turning on a vertical axle pinned to the ground.

Layout (``k`` = 0..7 around the axle, ``k + 1`` taken modulo 8)::

    hub (top of the axle, pinned)
     |  \\__ handlebar ___ handle_k          visible: axle hub-foot (1), handlebars hub-handle_k
     |                       |                (8) and handle_k-rim_k (8), rim ring rim_k-rim_k+1
     |                       |                (8): 25 bars with capsules
    foot (pinned) - - - - - rim_k --- rim_k+1  invisible bracing: spokes foot-rim_k (8) and
                                              diagonals handle_k-rim_k+1 (8): 16 links

Why it is rigid but for the spin: with ``foot`` and ``hub`` pinned the 16 free nodes have 48
degrees of freedom, and turning about the axle is the one that must stay, so 47 independent
constraints are needed. The 41 links give at most 40 (the axle joins two pinned nodes), so a
links-only design sags. Eight angle limits (Jakobsen 2001, section 5: a dot-product
constraint, not a link) keep each spoke at its angle to the axle, as a spoke welded to the
axle's foot is: with its spoke, each rim node then lies on a circle about the axle; the rim ring
fixes their spacing (7 of its 8 bars are independent), and each handle is fixed by its three
links to the hub, its rim node and the next one. That is 8 + 8 + 7 + 24 = 47 constraints,
every one of them satisfied at rest, leaving exactly the rotation about the axle (checked by
the rank of the constraint Jacobian in the tests).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_points, as_positive

SPOKES = 8
"""Rim and handle nodes around the axle."""

NODE_NAMES = ("foot", "hub", *(f"rim{k}" for k in range(SPOKES)),
              *(f"handle{k}" for k in range(SPOKES)))

RIM_MASS_FRACTION = 0.8
"""Share of the mass on the rim nodes (the platform); the rest is on the handles."""


def merry_go_round_links() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(visible bars, invisible bracing) as pairs of node names: 25 and 16 links."""
    ring = [(k, (k + 1) % SPOKES) for k in range(SPOKES)]
    visible = [("foot", "hub")]
    visible += [("hub", f"handle{k}") for k in range(SPOKES)]
    visible += [(f"handle{k}", f"rim{k}") for k in range(SPOKES)]
    visible += [(f"rim{a}", f"rim{b}") for a, b in ring]
    bracing = [("foot", f"rim{k}") for k in range(SPOKES)]
    bracing += [(f"handle{a}", f"rim{b}") for a, b in ring]
    return visible, bracing


def add_merry_go_round(world: PhysicsWorld, name: str, position: ArrayLike = (0.0, 0.0, 0.0),
                       *, radius: float = 1.0, height: float = 1.0,
                       platform_height: float = 0.25, mass: float = 25.0,
                       damping: float = 0.005, bar_radius: float = 0.025) -> Body:
    """Add a merry-go-round whose axle stands on the ground at ``position`` (metres).

    Parameters
    ----------
    radius
        Radius of the rim, m.
    height
        Height of the axle's top (the hub the handlebars start from), m.
    platform_height
        Height of the rim above the axle's foot, m (the platform is a shallow cone).
    mass
        Total mass of the turning part, kg (80 % on the rim, 20 % on the handles). The
        default is light enough that a child's push of a few newtons turns it.
    damping
        Per-tick damping of eq. 2 on the turning nodes (bearing friction): it coasts to a stop
        in a few seconds.
    bar_radius
        Capsule radius of the 25 visible bars, m.
    """
    radius = as_positive(radius, f"{name}: radius")
    height = as_positive(height, f"{name}: height")
    platform_height = as_positive(platform_height, f"{name}: platform_height")
    mass = as_positive(mass, f"{name}: mass")
    bar_radius = as_positive(bar_radius, f"{name}: bar_radius")
    base = as_points(position, f"{name}: position").reshape(3)
    angle = 2.0 * np.pi * np.arange(SPOKES) / SPOKES
    around = np.stack([np.cos(angle), np.zeros(SPOKES), np.sin(angle)], axis=1)
    rim = around * radius + (0.0, platform_height, 0.0)
    handles = around * 0.75 * radius + (0.0, 0.95 * height, 0.0)
    pos = np.vstack([[0.0, 0.0, 0.0], [0.0, height, 0.0], rim, handles]) + base
    masses = np.concatenate([[np.inf, np.inf],
                             np.full(SPOKES, RIM_MASS_FRACTION * mass / SPOKES),
                             np.full(SPOKES, (1.0 - RIM_MASS_FRACTION) * mass / SPOKES)])
    body = world.add_body(name, "merry_go_round", pos, mass=masses, node_names=NODE_NAMES,
                          damp_air=damping, meta={"radius": radius, "height": height})
    idx = {n: body.node(n) for n in NODE_NAMES}
    visible, bracing = merry_go_round_links()
    world.add_links([[idx[a], idx[b]] for a, b in visible], body=body)
    world.add_links([[idx[a], idx[b]] for a, b in bracing], body=body, visible=False)
    for a, b in visible:
        world.add_capsule(idx[a], idx[b], bar_radius, body=body)
    for k in range(SPOKES):
        rim_k = idx[f"rim{k}"]
        spoke = pos[rim_k - body.nodes.start] - pos[0]
        axle = pos[1] - pos[0]
        weld = float(np.arccos(spoke @ axle / (np.linalg.norm(spoke) * np.linalg.norm(axle))))
        world.add_angle_limit(idx["hub"], idx["foot"], rim_k, weld, weld, body=body)
    world.pin([idx["foot"], idx["hub"]])
    return body
