"""Charts and atlases (Horswill 2009, section VIII.A): task-specific frames tied to an object.

A *chart* is an object-centred coordinate system for one kind of manipulation, tied to the
object's surface: a point with chart coordinate ``y = 0`` lies on the surface, ``y > 0`` above
it, and the chart's y axis is the surface normal. An object's *atlas* is the dictionary of its
named charts (the clipboard's ``front``, the chair's ``seat``, the table's ``top``).

Like everything else about an object, a chart has no orientation state: "positions and
orientations of objects are determined entirely by the positions of their nodes" (section V).
A chart is stored as the coordinates of four frame nodes of its body in the chart's frame, in
the body's record meta (so snapshots keep it), and is rebuilt whenever it is asked for as the
rigid pose that best fits those nodes' current positions (:func:`fit_pose`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from twig.errors import PhysicsError, UnknownNameError
from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_points

CHARTS_KEY = "charts"
"""Key of the chart definitions in a body's record meta."""


@dataclass(frozen=True)
class Chart:
    """One chart of an object at the moment it was asked for.

    Attributes
    ----------
    name
        The chart's name in its atlas (``"front"``).
    origin
        (3,) world position of chart coordinate (0, 0, 0), metres: a point on the surface.
    axes
        (3, 3) rows are the unit chart axes x, y, z in world coordinates (right-handed,
        ``z = x cross y``); y is the surface normal.
    extent
        Half sizes of the surface patch along x and z, metres (points with ``|x| <= extent[0]``
        and ``|z| <= extent[1]`` at ``y = 0`` lie on the object).
    """

    name: str
    origin: np.ndarray
    axes: np.ndarray
    extent: tuple[float, float]

    @property
    def normal(self) -> np.ndarray:
        """(3,) unit surface normal (the chart's y axis)."""
        return self.axes[1]

    def to_world(self, point: ArrayLike) -> np.ndarray:
        """World position (m) of chart coordinates ``point`` ((3,) or (n, 3), metres)."""
        return self.origin + as_points(point, f"chart {self.name!r}: point") @ self.axes

    def from_world(self, point: ArrayLike) -> np.ndarray:
        """Chart coordinates (m) of world ``point`` ((3,) or (n, 3), metres)."""
        return (as_points(point, f"chart {self.name!r}: point") - self.origin) @ self.axes.T

    def on_surface(self, point: ArrayLike, tolerance: float = 1e-6) -> bool:
        """True when every world ``point`` lies on the chart's surface patch (``y`` within
        ``tolerance`` metres of 0, ``x`` and ``z`` within the extent)."""
        local = np.atleast_2d(self.from_world(point))
        ex, ez = self.extent
        return bool((np.abs(local[:, 1]) <= tolerance).all()
                    and (np.abs(local[:, 0]) <= ex + tolerance).all()
                    and (np.abs(local[:, 2]) <= ez + tolerance).all())


def body_meta(body: Body) -> dict:
    """The body's record meta (cold per-body data that snapshots keep: height, charts, mesh)."""
    return body.world.body_record(body.id).meta


def local_points(points: np.ndarray, origin: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """Coordinates (n, 3) of world ``points`` (n, 3) in the frame ``origin`` (3,), ``axes``
    (3, 3) rows, metres."""
    return (points - origin) @ axes.T


def fit_pose(local: np.ndarray, current: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rotation (3, 3) and translation (3,) that best carry the frame nodes' coordinates
    ``local`` (n, 3) onto their positions ``current`` (n, 3): ``current ~ local @ R.T + t``.

    Least squares over proper rotations (Kabsch's algorithm, reflection excluded). For a rigid
    frame this is exact; for a thin one (a clipboard's nodes lie in a slab) it also ignores the
    frame's soft mode, an inversion through its own plane that leaves the nodes nearly where
    they were but would mirror an affine reading of them.
    """
    lc = local.mean(axis=0)
    cc = current.mean(axis=0)
    u, _, vt = np.linalg.svd((local - lc).T @ (current - cc))
    d = np.sign(np.linalg.det(vt.T @ u.T)) or 1.0
    rotation = vt.T @ np.diag([1.0, 1.0, d]) @ u.T
    return rotation, cc - rotation @ lc


def add_chart(world: PhysicsWorld, body: Body, name: str, frame: Sequence[int],
              origin: ArrayLike, axes: ArrayLike,
              extent: tuple[float, float] = (np.inf, np.inf)) -> Chart:
    """Add chart ``name`` to ``body``'s atlas and return it.

    Parameters
    ----------
    frame
        Four non-coplanar node indices of ``body`` (global), rigidly joined: the chart follows
        them.
    origin
        (3,) a point on the surface now, metres.
    axes
        (3, 3) rows: unit x, y (the outward surface normal) and z axes now, orthonormal and
        right-handed.
    extent
        Half sizes of the surface patch along x and z, metres.
    """
    idx = [int(i) for i in frame]
    sl = body.nodes
    if len(set(idx)) != 4 or not all(sl.start <= i < sl.stop for i in idx):
        raise PhysicsError(f"{body.name}: chart {name!r} needs 4 different nodes of the body, "
                           f"got {idx}")
    u = as_points(axes, f"{body.name}: chart {name!r}: axes").reshape(3, 3)
    if not np.allclose(u @ u.T, np.eye(3), atol=1e-6) or np.linalg.det(u) < 0:
        raise PhysicsError(f"{body.name}: chart {name!r}: axes must be three orthonormal rows, "
                           "right-handed (z = x cross y)")
    o = as_points(origin, f"{body.name}: chart {name!r}: origin").reshape(3)
    if abs(np.linalg.det(world.node_pos[idx[1:]] - world.node_pos[idx[0]])) < 1e-12:
        raise PhysicsError(f"{body.name}: chart {name!r}: frame nodes {idx} are coplanar")
    local = local_points(world.node_pos[idx], o, u)
    spec = {"frame": tuple(i - sl.start for i in idx), "local": tuple(map(tuple, local.tolist())),
            "extent": (float(extent[0]), float(extent[1]))}
    meta = body_meta(body)
    # A new dict, not an edit: snapshots share the old one (they copy meta one level deep).
    meta[CHARTS_KEY] = {**meta.get(CHARTS_KEY, {}), name: spec}
    return chart(body, name)


def chart(body: Body, name: str) -> Chart:
    """The chart ``name`` of ``body`` as its nodes are now."""
    charts = body_meta(body).get(CHARTS_KEY, {})
    if name not in charts:
        known = ", ".join(charts) or "none"
        raise UnknownNameError(f"{body.name!r} ({body.type}) has no chart {name!r} "
                               f"(its charts: {known})")
    spec = charts[name]
    frame = body.world.node_pos[[body.nodes.start + i for i in spec["frame"]]]
    rotation, origin = fit_pose(np.array(spec["local"]), frame)
    return Chart(name, origin, rotation.T, spec["extent"])


def atlas(body: Body) -> dict[str, Chart]:
    """The atlas of ``body``: chart name -> :class:`Chart`, as its nodes are now (empty for an
    object without charts)."""
    names = body_meta(body).get(CHARTS_KEY, {})
    return {name: chart(body, name) for name in names}
