"""Order in which links are projected.

A sequential Gauss-Seidel sweep in link-creation order makes each projection wait on the one
before (they usually share a node), and row-order sweeps over a large cloth with one iteration can
feed errors along the rows until they diverge. Greedy edge colouring groups links into classes in
which no two links share a node; projecting class after class keeps consecutive projections
independent (the CPU overlaps them) and spreads each node's corrections over the sweep.
"""

from __future__ import annotations

import numpy as np

from twig.physics.hot import kernel
from twig.physics.sorting import stable_argsort

_MAX_COLORS = 63
"""Colours tracked per node in a bit mask; links of nodes with more neighbours share the last."""


@kernel
def link_order(link_nodes, n_nodes):
    """Permutation of the links, grouped by a greedy node-disjoint colouring.

    Parameters
    ----------
    link_nodes : (L, 2) int32
        Node indices of each link.
    n_nodes : int
        Number of nodes.

    Returns
    -------
    (L,) int32
        Link indices, colour class by colour class, in creation order within a class.
    """
    n_links = link_nodes.shape[0]
    used = np.zeros(n_nodes, dtype=np.int64)
    color = np.empty(n_links, dtype=np.int64)
    for k in range(n_links):
        i = link_nodes[k, 0]
        j = link_nodes[k, 1]
        busy = used[i] | used[j]
        c = 0
        while c < _MAX_COLORS and (busy >> c) & 1:
            c += 1
        color[k] = c
        if c < _MAX_COLORS:
            used[i] |= np.int64(1) << c
            used[j] |= np.int64(1) << c
    return stable_argsort(color).astype(np.int32)
