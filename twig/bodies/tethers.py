"""Tethers: inequality links from each free node to the pinned nodes of its body.

Gauss-Seidel relaxation with few iterations lets a long chain or a cloth hanging from pins stretch,
the error gathering next to the pins. A tether is Jakobsen's inequality stick (section 5) with
only a maximum: the node may come closer to the pin but never farther than its rest distance, so
the body hangs at its true length after one iteration ("long range attachments", Kim, Chentanez
and Mueller 2012). Tethers are invisible and cost one distance check each.

A body held by one node (a doll carried by its foot) hangs from a hand the same way: the links
next to the grip stretched by a fifth to a half of their length while a child carried its doll
in the playground. :func:`add_grip_tethers` ties every node of the held body to the holding
hand, as far as the node is from the grip along the body's rigid links.
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


def add_grip_tethers(world: PhysicsWorld, holder: int, body: Body, grip: int) -> np.ndarray:
    """Tether every node of ``body`` that its rigid links join to node ``grip`` (global
    indices) to node ``holder``, which holds ``grip`` by a zero-length grab link; returns the
    tethers' link ids.

    Each tether's maximum is the shortest path (m) from ``grip`` to the node along the body's
    rigid links at their rest lengths, which no pose of the body exceeds: the tethers act only
    on a stretched body.
    """
    from scipy.sparse import coo_matrix  # here: SciPy's sparse graphs take ~0.15 s to import
    from scipy.sparse.csgraph import dijkstra

    start, stop = body.nodes.start, body.nodes.stop
    rigid = ((world.link_min == world.link_max) & (world.link_min > 0.0)
             & (world.links["body"] == body.id))
    ends = world.link_nodes[rigid] - start
    inside = ((ends >= 0) & (ends < stop - start)).all(axis=1)
    ends = ends[inside]
    graph = coo_matrix((world.link_min[rigid][inside], (ends[:, 0], ends[:, 1])),
                       shape=(stop - start, stop - start))
    along = dijkstra(graph.tocsr(), directed=False, indices=grip - start)
    tied = np.flatnonzero(np.isfinite(along) & (along > 0.0))
    if not len(tied):
        return np.zeros(0, dtype=np.int64)
    pairs = np.column_stack([np.full(len(tied), holder), start + tied])
    return world.add_links(pairs, max=along[tied], body=body, visible=False)
