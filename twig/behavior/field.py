"""The approach field: a walk vector from attraction to a target and repulsion from obstacles
(Horswill 2009, section IX.A, eq. 6), for many characters at once.

    w = a + r
    a = p_target - p_character + d * dir                        (saturated)
    r = sum over o != target of  c * (v_o + v_o x e_up) / max(d_min, |v_o|^2)

with ``v_o`` the character's offset from obstacle ``o``. The cross product with up is the curl
term that pushes characters *around* obstacles instead of into the local minimum in front of
them. ``a`` is saturated to the walking speed; obstacles farther than a cut-off are ignored.

Obstacles here are bodies with a footprint radius, so ``v_o`` is measured from the obstacle's
edge (its horizontal offset shortened by the radius; the paper's point obstacles have radius
0). Everything is horizontal: y is dropped. All arrays are NumPy; nothing loops over pairs in
Python.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from twig.errors import TwigError


@dataclass(frozen=True)
class FieldParams:
    """Constants of eq. 6 (Horswill: "tuned to taste").

    Attributes
    ----------
    gain
        Attraction per metre of offset from the stop point, 1/s (``a`` is a velocity).
    saturation
        Largest attraction speed, m/s (the walk speed; eq. 6's saturation of ``a``).
    c
        Repulsion strength ``c``, m^2/s: an obstacle's edge ``s`` metres away pushes with
        ``c * sqrt(2) / s`` m/s (inside ``sqrt(d_min)``, and inside the obstacle:
        ``c * sqrt(2) / sqrt(d_min)``).
    d_min
        Floor of the squared distance in the denominator, m^2.
    cutoff
        Obstacles whose edge is farther than this are ignored, m.
    curl
        Weight of the curl term ``v x e_up`` (1 = the paper; 0 = plain repulsion).
    max_speed
        Largest walk speed the field ever asks for, m/s.
    """

    gain: float = 1.5
    saturation: float = 1.2
    c: float = 0.2
    d_min: float = 0.04
    cutoff: float = 3.0
    curl: float = 1.0
    max_speed: float = 1.6

    def __post_init__(self) -> None:
        for name in ("gain", "saturation", "c", "d_min", "cutoff", "curl", "max_speed"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and np.isfinite(value) and value >= 0):
                raise TwigError(f"approach field: {name} must be a finite number >= 0, "
                                f"got {value!r}")
        if self.d_min <= 0:
            raise TwigError(f"approach field: d_min must be > 0 m^2, got {self.d_min!r}")


def approach_field(position: np.ndarray, goal: np.ndarray, obstacles: np.ndarray,
                   radius: np.ndarray, ignore: np.ndarray, params: FieldParams,
                   saturation: np.ndarray | None = None,
                   own_radius: np.ndarray | None = None) -> np.ndarray:
    """Walk vectors of eq. 6 for ``C`` characters among ``O`` obstacles.

    Parameters
    ----------
    position
        (C, 3) characters' positions, m.
    goal
        (C, 3) stop points ``p_target + d * dir``, m (the attraction's zero).
    obstacles
        (O, 3) obstacle centres, m.
    radius
        (O,) obstacles' footprint radii, m (distance is measured from their edge).
    ignore
        (C, O) bool: obstacles that do not repel that character (itself, its target, what
        it carries).
    params
        The field's constants.
    saturation
        (C,) per-character attraction limits, m/s (default ``params.saturation``).
    own_radius
        (C,) characters' own footprint radii, m (default 0): the edge distance is between
        footprints.

    Returns
    -------
    numpy.ndarray
        (C, 3) walk velocities, m/s, horizontal (y = 0), at most ``params.max_speed``.
    """
    a = params.gain * (goal - position)
    a[:, 1] = 0.0
    limit = np.full(len(position), params.saturation) if saturation is None else saturation
    norm = np.linalg.norm(a, axis=1)
    a *= np.minimum(1.0, limit / np.maximum(norm, 1e-12))[:, None]
    own = np.zeros(len(position)) if own_radius is None else own_radius
    w = a + repulsion(position, obstacles, radius, ignore, params, own)
    speed = np.linalg.norm(w, axis=1)
    w *= np.minimum(1.0, params.max_speed / np.maximum(speed, 1e-12))[:, None]
    return w


def repulsion(position: np.ndarray, obstacles: np.ndarray, radius: np.ndarray,
              ignore: np.ndarray, params: FieldParams, own_radius: np.ndarray) -> np.ndarray:
    """The ``r`` term of eq. 6: (C, 3) m/s, summed over the obstacles within the cut-off.

    ``v x e_up`` for horizontal ``v = (x, 0, z)`` is ``(-z, 0, x)``: the same turn for every
    obstacle, so a character slides along a wall rather than stopping in front of it.
    """
    if not len(obstacles):
        return np.zeros_like(position)
    v = position[:, None, [0, 2]] - obstacles[None, :, [0, 2]]          # (C, O, 2)
    dist = np.sqrt((v ** 2).sum(axis=2))                                 # centre distance
    edge = np.maximum(dist - radius[None, :] - own_radius[:, None], 0.0)  # gap between edges
    near = (edge < params.cutoff) & ~ignore
    scale = np.where(near, 1.0 / np.maximum(dist, 1e-9), 0.0)            # v -> unit vector
    vx, vz = v[..., 0] * scale, v[..., 1] * scale
    # |r| = c / edge, held at c / sqrt(d_min) closer in: fading to 0 at the edge, as
    # c edge / d_min did, it let a character led straight at a low obstacle (the
    # merry-go-round's rim) walk into it and stay there, pushing toward its target.
    k = params.c / np.maximum(np.sqrt(params.d_min), edge)
    out = np.zeros_like(position)
    out[:, 0] = (k * (vx - params.curl * vz)).sum(axis=1)
    out[:, 2] = (k * (vz + params.curl * vx)).sum(axis=1)
    return out
