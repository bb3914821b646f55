"""Rotation arithmetic for the exporters, vectorised over any leading axes.

Rotation matrices act on column vectors (``v_world = R @ v_local``); quaternions are ``(x, y, z,
w)`` as glTF stores them. Every function takes and returns float64 arrays whose leading axes
(frames, joints...) are carried through.
"""

from __future__ import annotations

import numpy as np


def unit(v: np.ndarray) -> np.ndarray:
    """``v / |v|`` along the last axis (zero vectors stay zero)."""
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return np.divide(v, n, out=np.zeros_like(v), where=n > 0)


def basis(primary: np.ndarray, secondary: np.ndarray) -> np.ndarray:
    """Orthonormal right-handed frames from two directions, shape (..., 3, 3).

    Column 0 is ``primary`` normalised (kept exactly), column 1 is ``secondary`` with its
    component along ``primary`` removed (Gram-Schmidt), column 2 their cross product. This is
    how an orientation is read off node positions (Jakobsen 2001, section 6: "cross products
    and vector normalizations").
    """
    e0 = unit(primary)
    e1 = unit(secondary - np.sum(secondary * e0, axis=-1, keepdims=True) * e0)
    return np.stack([e0, e1, np.cross(e0, e1)], axis=-1)


def quaternions(m: np.ndarray) -> np.ndarray:
    """Unit quaternions ``(x, y, z, w)`` of rotation matrices (..., 3, 3), with w >= 0.

    Shepperd's method: each matrix uses the largest of the four pivots, so the result is
    accurate for every rotation (no division by a vanishing component).
    """
    m = np.asarray(m, dtype=np.float64)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    tr = m00 + m11 + m22
    sxy, sxz, syz = m[..., 0, 1] + m[..., 1, 0], m[..., 0, 2] + m[..., 2, 0], \
        m[..., 1, 2] + m[..., 2, 1]
    dx, dy, dz = m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], \
        m[..., 1, 0] - m[..., 0, 1]
    tx, ty, tz, tw = 1 + 2 * m00 - tr, 1 + 2 * m11 - tr, 1 + 2 * m22 - tr, 1 + tr
    candidates = np.stack([
        np.stack([tx, sxy, sxz, dx], -1),
        np.stack([sxy, ty, syz, dy], -1),
        np.stack([sxz, syz, tz, dz], -1),
        np.stack([dx, dy, dz, tw], -1),
    ], axis=-2)
    k = np.argmax(np.stack([m00, m11, m22, tr], -1), axis=-1)
    q = unit(np.take_along_axis(candidates, k[..., None, None], axis=-2)[..., 0, :])
    return np.where(q[..., 3:4] < 0, -q, q)


def matrices(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of quaternions ``(x, y, z, w)`` (normalised first)."""
    x, y, z, w = np.moveaxis(unit(np.asarray(q, dtype=np.float64)), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], axis=-2)


def continuous(q: np.ndarray) -> np.ndarray:
    """Quaternions (F, ..., 4) with signs chosen so consecutive frames have q . q' >= 0.

    ``q`` and ``-q`` are the same rotation; interpolating between frames (glTF's LINEAR
    sampler, resampling) must take the short way, which needs neighbours in one hemisphere.
    """
    q = np.array(q, dtype=np.float64)
    dots = np.sum(q[1:] * q[:-1], axis=-1)
    flips = np.concatenate([np.zeros((1, *dots.shape[1:]), dtype=bool), dots < 0])
    sign = np.where(np.logical_xor.accumulate(flips, axis=0), -1.0, 1.0)
    return q * sign[..., None]


def angle_between(q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
    """Rotation angle (radians, 0..pi) taking orientation ``q0`` to ``q1``."""
    d = np.abs(np.sum(unit(q0) * unit(q1), axis=-1))
    return 2.0 * np.arccos(np.clip(d, 0.0, 1.0))


def euler_zxy(m: np.ndarray) -> np.ndarray:
    """Angles ``(z, x, y)`` in radians with ``m = Rz(z) @ Rx(x) @ Ry(y)``, shape (..., 3).

    The BVH channel order ``Zrotation Xrotation Yrotation``. At the gimbal lock (x = +-90
    degrees) the split between z and y is arbitrary; y is set to 0 there.
    """
    sx = np.clip(m[..., 2, 1], -1.0, 1.0)
    x = np.arcsin(sx)
    locked = np.abs(sx) > 1.0 - 1e-12
    z = np.where(locked, np.arctan2(m[..., 1, 0], m[..., 0, 0]),
                 np.arctan2(-m[..., 0, 1], m[..., 1, 1]))
    y = np.where(locked, 0.0, np.arctan2(-m[..., 2, 0], m[..., 2, 2]))
    return np.stack([z, x, y], axis=-1)


def slerp(q0: np.ndarray, q1: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Spherical interpolation between unit quaternions, ``s`` in [0, 1] (broadcast)."""
    d = np.sum(q0 * q1, axis=-1, keepdims=True)
    q1 = np.where(d < 0, -q1, q1)
    d = np.abs(d)
    theta = np.arccos(np.clip(d, -1.0, 1.0))
    sin = np.sin(theta)
    near = sin < 1e-9
    safe = np.where(near, 1.0, sin)
    a = np.where(near, 1.0 - s, np.sin((1.0 - s) * theta) / safe)
    b = np.where(near, s, np.sin(s * theta) / safe)
    return unit(a * q0 + b * q1)


def carried_twist(axis: np.ndarray, start: np.ndarray, bend: np.ndarray | None = None,
                  carried: np.ndarray | None = None, blend: float = 0.03) -> np.ndarray:
    """Unit twist directions (F, K, 3) perpendicular to ``axis`` (F, K, 3), frame by frame.

    Frame 0 starts from ``start`` (K, 3); each later frame from the previous twist, rotated
    by ``carried`` (F-1, K, 3, 3; the parent's rotation since the previous frame) if given.
    Where ``bend`` (F, K, 3) is given (the normal of a bending limb's plane, scaled by the sine
    of the bend), the twist turns to it with the sign that agrees with the carried twist,
    weighted by the squared sine against ``blend``. Without a bend this is parallel transport:
    the least twist that keeps up with the axis, continuous whatever the axis does.
    """
    axis = unit(axis)
    out = np.empty_like(axis)
    q = np.asarray(start, dtype=np.float64)
    for f in range(len(axis)):
        if f:
            q = out[f - 1] if carried is None else np.einsum("kij,kj->ki", carried[f - 1],
                                                             out[f - 1])
        a = axis[f]
        r = blend * unit(q - np.sum(q * a, axis=-1, keepdims=True) * a)
        if bend is not None:  # the full squared sine, however far the twist is from it
            agree = np.where(np.sum(bend[f] * q, axis=-1, keepdims=True) < 0.0, -1.0, 1.0)
            r = r + agree * np.linalg.norm(bend[f], axis=-1, keepdims=True) * bend[f]
        out[f] = unit(r - np.sum(r * a, axis=-1, keepdims=True) * a)
    return out


_HOLD = 1e-9
"""Weight of the reference in :func:`settled_twist` (a bend of 0.002 degrees): it decides
only where a limb does not bend at all."""


def settled_twist(axis: np.ndarray, reference: np.ndarray, bend: np.ndarray,
                  stiffness: float) -> np.ndarray:
    """Unit twist directions (F, K, 3) perpendicular to ``axis`` (F, K, 3) that follow the
    bend normals ``bend`` (F, K, 3; signed, scaled by the sine of the bend) where a limb bends
    and change smoothly over time where it is nearly straight.

    Each frame's twist is a 2-D vector ``t`` in the plane of ``reference`` (F, K, 3; unit,
    perpendicular to the axis, carried without twist from frame to frame) and ``axis x
    reference``. Over the whole track, ``t`` minimises ``sum_f s_f^2 |t_f - n_f / s_f|^2 +
    stiffness sum_f |t_f+1 - t_f|^2`` (one tridiagonal solve per limb), where ``n_f`` is the
    bend normal and ``s_f = |n_f|`` the sine of the bend: a bent limb's twist lies in the
    normal of its bend, a straight one's is interpolated between its bends. The reference
    holds it where a limb never bends. A twist settles in about ``sqrt(stiffness) / s``
    frames.
    """
    a = unit(axis)
    e1 = unit(reference)
    e2 = np.cross(a, e1)
    target = np.stack([np.sum(bend * e1, axis=-1), np.sum(bend * e2, axis=-1)], axis=-1)
    sine2 = np.sum(bend * bend, axis=-1)  # (F, K)
    weight = sine2 + _HOLD
    rhs = np.sqrt(sine2)[..., None] * target
    rhs[..., 0] += _HOLD
    neighbours = np.full(len(a), 2.0)
    neighbours[0] -= 1.0
    neighbours[-1] -= 1.0
    from scipy.linalg import solve_banded  # here: importing SciPy's linalg takes ~0.2 s

    t = np.empty_like(rhs)
    for k in range(a.shape[1]):
        banded = np.zeros((3, len(a)))
        banded[0, 1:] = banded[2, :-1] = -stiffness
        banded[1] = weight[:, k] + stiffness * neighbours
        t[:, k] = solve_banded((1, 1), banded, rhs[:, k])
    return unit(t[..., :1] * e1 + t[..., 1:] * e2)
