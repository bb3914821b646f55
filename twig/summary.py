"""The per-body summary printed by ``twig run``: where each body ended up and how it is."""

from __future__ import annotations

import numpy as np
from rich.table import Table

from twig.physics import PhysicsWorld


def summary_table(world: PhysicsWorld) -> Table:
    """A table with one row per body: type, nodes, centroid (m), speed (m/s), lowest point (m),
    and the largest relative error of its rigid links."""
    table = Table("body", "type", "nodes", "centroid x y z (m)", "speed (m/s)", "lowest y (m)",
                  "max link error", box=None)
    for body in world.bodies:
        pos = body.positions
        errors = body.link_errors()
        err = f"{100 * errors.max():.2f} %" if len(errors) else "-"
        table.add_row(body.name, body.type, str(len(pos)),
                      " ".join(f"{v:+.2f}" for v in body.centroid),
                      f"{np.linalg.norm(body.velocity):.3f}", f"{pos[:, 1].min():.3f}", err)
    return table
