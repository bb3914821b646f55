"""Tethers: inequality links from each free node to the pinned nodes of its body.

Gauss-Seidel relaxation with few iterations lets a long chain or a cloth hanging from pins stretch,
the error gathering next to the pins. A tether is Jakobsen's inequality stick (section 5) with
only a maximum: the node may come closer to the pin but never farther than its rest distance, so
the body hangs at its true length after one iteration ("long range attachments", Kim, Chentanez
and Mueller 2012). Tethers are invisible and cost one distance check each.
"""

from __future__ import annotations

import numpy as np

from twig.physics import Body, PhysicsWorld


def add_tethers(world: PhysicsWorld, body: Body, anchors: np.ndarray) -> None:
    """Tether every other node of ``body`` to each global node index in ``anchors``.

    The maximum length is the straight rest distance; for a body built straight or flat this
    never exceeds the distance along the body, so a slack body is not pulled taut.
    """
    nodes = np.arange(body.nodes.start, body.nodes.stop)
    pairs = np.array([(a, n) for a in anchors for n in nodes if n != a], dtype=np.int32)
    if len(pairs):
        dist = np.linalg.norm(world.node_pos[pairs[:, 0]] - world.node_pos[pairs[:, 1]], axis=1)
        world.add_links(pairs, max=dist, body=body, visible=False)
