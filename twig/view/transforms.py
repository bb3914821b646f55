"""Vectorised rotations for drawing: quaternions (w, x, y, z) that turn unit shapes into place.

Both the live viewer (viser's batched meshes take a position, a ``wxyz`` quaternion and a
per-axis scale per instance) and the video renderer (its vertex shader rotates by the same
quaternion) place every primitive this way.
"""

from __future__ import annotations

import numpy as np


def quat_z_to(direction: np.ndarray) -> np.ndarray:
    """Quaternions (n, 4) ``wxyz`` rotating +z onto each row of ``direction`` (n, 3).

    The shortest-arc rotation ``q = (1 + z.d, z x d)`` normalised; a zero direction gives the
    identity and ``d = -z`` a half turn about x.
    """
    d = np.asarray(direction, dtype=np.float64)
    norm = np.linalg.norm(d, axis=1)
    safe = np.where(norm > 0.0, norm, 1.0)
    dx, dy, dz = (d / safe[:, None]).T
    q = np.stack([1.0 + dz, -dy, dx, np.zeros_like(dz)], axis=1)
    q[norm == 0.0] = (1.0, 0.0, 0.0, 0.0)
    q[(norm > 0.0) & (q[:, 0] < 1e-9)] = (0.0, 1.0, 0.0, 0.0)
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def quat_from_matrix(rot: np.ndarray) -> np.ndarray:
    """Quaternions (n, 4) ``wxyz`` of rotation matrices ``rot`` (n, 3, 3) (columns = the
    rotated x, y, z axes). Shepperd's method: each row uses its largest of w, x, y, z, so it is
    exact for every rotation, including half turns."""
    m = np.asarray(rot, dtype=np.float64)
    trace = np.trace(m, axis1=1, axis2=2)
    diag = np.stack([m[:, 0, 0], m[:, 1, 1], m[:, 2, 2]], axis=1)
    cand = np.concatenate([trace[:, None], diag], axis=1)
    pick = np.argmax(cand, axis=1)
    q = np.empty((len(m), 4))
    # s = 4 * (the largest of |w|, |x|, |y|, |z|).
    s = np.sqrt(np.maximum(1.0 + 2.0 * cand[np.arange(len(m)), pick] - trace, 1e-300)) * 2.0
    for k in range(4):
        rows = pick == k
        if not rows.any():
            continue
        r = m[rows]
        ss = s[rows]
        big = 0.25 * ss
        a = (r[:, 2, 1] - r[:, 1, 2]) / ss
        b = (r[:, 0, 2] - r[:, 2, 0]) / ss
        c = (r[:, 1, 0] - r[:, 0, 1]) / ss
        e = (r[:, 0, 1] + r[:, 1, 0]) / ss
        f = (r[:, 0, 2] + r[:, 2, 0]) / ss
        g = (r[:, 1, 2] + r[:, 2, 1]) / ss
        # (w, x, y, z) when w, x, y or z is the largest component.
        comps = ((big, a, b, c), (a, big, e, f), (b, e, big, g), (c, f, g, big))[k]
        q[rows] = np.stack(comps, axis=1)
    q *= np.where(q[:, :1] < 0.0, -1.0, 1.0)
    return q


def rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors ``v`` (n, 3) by quaternions ``q`` (n, 4) ``wxyz``."""
    w = q[:, :1]
    u = q[:, 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)
