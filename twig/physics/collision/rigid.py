"""Contact response of a four-node rigid frame (a box prop) as one rigid body.

Jakobsen's affine rule (:mod:`twig.physics.collision.response`) is exact for points inside the
hull of the nodes, such as a point on a capsule. A box's surface lies outside the tetrahedron of
its frame nodes, where affine coefficients exceed [0, 1] and the rule mostly squashes the frame
instead of moving it. A box is therefore moved as the rigid body its frame is: a contact
impulse ``P = lambda n`` at point ``p`` translates every node by ``P / M`` and turns it by
``I^-1 (r x P)`` about the centre of mass (``r = p - c``), and the generalised inverse mass
along ``n`` is ``1/M + (r x n) . I^-1 (r x n)`` (the rigid-body form of Jakobsen section 6).
"""

from __future__ import annotations

from twig.physics.hot import hot_kernel, kernel


@hot_kernel
def rigid_frame(pos, w, i0, i1, i2, i3):
    """Inverse total mass, centre of mass and inverse inertia tensor (row-major 9-tuple) of
    the point masses at nodes ``i0..i3`` with inverse masses ``w``; the inverse mass is 0 if
    any node is immovable (then the whole frame is)."""
    if w[i0] == 0.0 or w[i1] == 0.0 or w[i2] == 0.0 or w[i3] == 0.0:
        return 0.0, 0.0, 0.0, 0.0, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    m = 0.0
    cx = 0.0
    cy = 0.0
    cz = 0.0
    for i in (i0, i1, i2, i3):
        mi = 1.0 / w[i]
        m += mi
        cx += mi * pos[i, 0]
        cy += mi * pos[i, 1]
        cz += mi * pos[i, 2]
    cx /= m
    cy /= m
    cz /= m
    xx = 0.0
    yy = 0.0
    zz = 0.0
    xy = 0.0
    xz = 0.0
    yz = 0.0
    for i in (i0, i1, i2, i3):
        mi = 1.0 / w[i]
        rx = pos[i, 0] - cx
        ry = pos[i, 1] - cy
        rz = pos[i, 2] - cz
        xx += mi * (ry * ry + rz * rz)
        yy += mi * (rx * rx + rz * rz)
        zz += mi * (rx * rx + ry * ry)
        xy -= mi * rx * ry
        xz -= mi * rx * rz
        yz -= mi * ry * rz
    # Inverse of the symmetric 3x3 [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]].
    a00 = yy * zz - yz * yz
    a01 = xz * yz - xy * zz
    a02 = xy * yz - xz * yy
    a11 = xx * zz - xz * xz
    a12 = xy * xz - xx * yz
    a22 = xx * yy - xy * xy
    det = xx * a00 + xy * a01 + xz * a02
    if det <= 0.0:
        return 0.0, cx, cy, cz, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    k = 1.0 / det
    return 1.0 / m, cx, cy, cz, (a00 * k, a01 * k, a02 * k, a01 * k, a11 * k, a12 * k,
                                 a02 * k, a12 * k, a22 * k)


@kernel
def rigid_inverse_mass(inv_m, cx, cy, cz, inv_i, px, py, pz, nx, ny, nz):
    """Generalised inverse mass of the frame at point ``p`` along unit ``n``."""
    if inv_m == 0.0:
        return 0.0
    rx = px - cx
    ry = py - cy
    rz = pz - cz
    ax = ry * nz - rz * ny
    ay = rz * nx - rx * nz
    az = rx * ny - ry * nx
    bx = inv_i[0] * ax + inv_i[1] * ay + inv_i[2] * az
    by = inv_i[3] * ax + inv_i[4] * ay + inv_i[5] * az
    bz = inv_i[6] * ax + inv_i[7] * ay + inv_i[8] * az
    return inv_m + ax * bx + ay * by + az * bz


@hot_kernel
def rigid_move(pos, i0, i1, i2, i3, inv_m, cx, cy, cz, inv_i, px, py, pz, nx, ny, nz, lam):
    """Apply the impulse ``lam n`` (in units of metres times mass) at ``p`` to the frame:
    translate by ``lam n / M`` and turn by ``I^-1 (r x lam n)`` (small-angle rotation)."""
    if inv_m == 0.0:
        return
    rx = px - cx
    ry = py - cy
    rz = pz - cz
    ax = lam * (ry * nz - rz * ny)
    ay = lam * (rz * nx - rx * nz)
    az = lam * (rx * ny - ry * nx)
    ox = inv_i[0] * ax + inv_i[1] * ay + inv_i[2] * az
    oy = inv_i[3] * ax + inv_i[4] * ay + inv_i[5] * az
    oz = inv_i[6] * ax + inv_i[7] * ay + inv_i[8] * az
    tx = lam * inv_m * nx
    ty = lam * inv_m * ny
    tz = lam * inv_m * nz
    for i in (i0, i1, i2, i3):
        qx = pos[i, 0] - cx
        qy = pos[i, 1] - cy
        qz = pos[i, 2] - cz
        pos[i, 0] += tx + oy * qz - oz * qy
        pos[i, 1] += ty + oz * qx - ox * qz
        pos[i, 2] += tz + ox * qy - oy * qx
