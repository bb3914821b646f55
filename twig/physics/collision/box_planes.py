"""Boxes against the static planes: each corner below a plane pushed out, the box as a rigid
frame, and the planes' friction on those corners once per tick."""

from __future__ import annotations

from twig.physics.collision.box_pairs import box_corner, box_frame
from twig.physics.collision.response import split_normal
from twig.physics.collision.rigid import rigid_frame, rigid_inverse_mass, rigid_move
from twig.physics.flags import GROUNDED
from twig.physics.hot import hot_kernel, kernel


@hot_kernel
def _push_frame(pos, w, vol_nodes, v, px, py, pz, nx, ny, nz, amount):
    """Move box ``v``'s frame rigidly so that its point ``p`` moves ``amount`` along ``n``."""
    i0, i1, i2, i3 = vol_nodes[v, 0], vol_nodes[v, 1], vol_nodes[v, 2], vol_nodes[v, 3]
    inv_m, cx, cy, cz, inv_i = rigid_frame(pos, w, i0, i1, i2, i3)
    s = rigid_inverse_mass(inv_m, cx, cy, cz, inv_i, px, py, pz, nx, ny, nz)
    if s > 0.0:
        rigid_move(pos, i0, i1, i2, i3, inv_m, cx, cy, cz, inv_i, px, py, pz, nx, ny, nz,
                   amount / s)


@kernel
def boxes_on_planes(pos, w, vol_nodes, vol_coef, boxes, box_c, box_u, box_h, plane_normal,
                    plane_offset, corner_push, corner_plane, reverse):
    """Push box corners out of the static planes (Jakobsen's C1 for points that are not nodes),
    moving each box as a rigid frame; with ``reverse`` the boxes and their corners go in
    reverse order (see :data:`~twig.physics.collision.narrow.REVERSED`). Accumulates each
    corner's push in ``corner_push`` (B, 8) and remembers the plane in ``corner_plane`` for
    friction."""
    if boxes is None:  # a world without boxes: compiled to nothing
        return
    nb = boxes.shape[0]
    npl = plane_normal.shape[0]
    for bb in range(nb):
        b = nb - 1 - bb if reverse else bb
        v = boxes[b]
        for p in range(npl):
            nx = plane_normal[p, 0]
            ny = plane_normal[p, 1]
            nz = plane_normal[p, 2]
            for cc in range(8):
                corner = 7 - cc if reverse else cc
                box_frame(pos, vol_nodes, vol_coef, v, box_c, box_u, box_h)
                px, py, pz = box_corner(box_c, box_u, box_h, v, corner)
                pen = plane_offset[p] - (px * nx + py * ny + pz * nz)
                if pen <= 0.0:
                    continue
                _push_frame(pos, w, vol_nodes, v, px, py, pz, nx, ny, nz, pen)
                corner_push[b, corner] += pen
                corner_plane[b, corner] = p


@kernel
def box_plane_friction(pos, prev, w, flags, ground_normal, vol_nodes, vol_coef, boxes, box_c,
                       box_u, box_h, plane_normal, plane_friction, corner_push, corner_plane,
                       max_rise):
    """Jakobsen friction at box corners that touched a plane this tick; marks the box's nodes
    GROUNDED (with that plane's normal) so that what lands on the box cannot push it down;
    and no box leaves a plane faster than ``max_rise`` m per tick (:func:`_no_launch`)."""
    if boxes is None:  # a world without boxes: compiled to nothing
        return
    for b in range(boxes.shape[0]):
        v = boxes[b]
        for corner in range(8):
            push = corner_push[b, corner]
            if push <= 0.0:
                continue
            p = corner_plane[b, corner]
            nx = plane_normal[p, 0]
            ny = plane_normal[p, 1]
            nz = plane_normal[p, 2]
            box_frame(pos, vol_nodes, vol_coef, v, box_c, box_u, box_h)
            px, py, pz = box_corner(box_c, box_u, box_h, v, corner)
            vx = 0.0
            vy = 0.0
            vz = 0.0
            for k in range(4):
                i = vol_nodes[v, k]
                c = vol_coef[v, 0, k]
                for a in range(3):
                    sgn = 1.0 if corner & (1 << a) else -1.0
                    c += sgn * vol_coef[v, a + 1, k]
                vx += c * (pos[i, 0] - prev[i, 0])
                vy += c * (pos[i, 1] - prev[i, 1])
                vz += c * (pos[i, 2] - prev[i, 2])
                flags[i] |= GROUNDED
                ground_normal[i, 0] = nx
                ground_normal[i, 1] = ny
                ground_normal[i, 2] = nz
            _, tx, ty, tz, tl = split_normal(vx, vy, vz, nx, ny, nz)
            if tl <= 1e-15:
                continue
            _push_frame(pos, w, vol_nodes, v, px, py, pz, -tx / tl, -ty / tl, -tz / tl,
                        min(tl, plane_friction[p] * push))
        _no_launch(pos, prev, w, vol_nodes, v, corner_push[b], corner_plane[b], plane_normal,
                   max_rise)


@kernel
def _no_launch(pos, prev, w, vol_nodes, v, pushes, planes, plane_normal, max_rise):
    """A box pushed out of a plane this tick leaves it at ``max_rise`` (m per tick) at most.

    Projection leaves a pushed node with the push as velocity; a box squeezed into the ground
    by something that does not give (a foot stepping on a light chair) would be thrown off at
    tens of metres a second. Boxes that fall or are thrown keep their motion: only the
    outward speed the pushes created beyond ``max_rise`` is removed.
    """
    best = -1
    for corner in range(8):
        if pushes[corner] > 0.0 and (best < 0 or pushes[corner] > pushes[best]):
            best = corner
    if best < 0:
        return
    p = planes[best]
    nx = plane_normal[p, 0]
    ny = plane_normal[p, 1]
    nz = plane_normal[p, 2]
    for k in range(4):
        i = vol_nodes[v, k]
        if w[i] == 0.0:
            continue
        up = ((pos[i, 0] - prev[i, 0]) * nx + (pos[i, 1] - prev[i, 1]) * ny
              + (pos[i, 2] - prev[i, 2]) * nz)
        if up > max_rise:
            excess = up - max_rise
            prev[i, 0] += excess * nx
            prev[i, 1] += excess * ny
            prev[i, 2] += excess * nz
