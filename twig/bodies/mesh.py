"""BoxModel: a prop from a mesh file, collided with as its oriented bounding box (Horswill 2009,
section XI.A: "many props are passive ... and can be approximated as boxes for purposes of
collision detection ... the BoxModel class will automatically load the mesh and compute its
bounding box").

The mesh (OBJ, glTF/GLB or STL, read by trimesh) is kept for renderers in the prop's body frame,
whose pose comes from the four frame nodes like every other orientation in twig ("meshes for
rendering are stored separately, with mesh transforms being computed from node positions at
render time", section V): :func:`mesh_pose` gives the rigid transform, :func:`body_mesh` the
vertices where they are now.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike

from twig.bodies.charts import body_meta, fit_pose, local_points
from twig.bodies.props import add_box_prop, as_finite, as_friction, tetra_frame, yaw_axes
from twig.errors import AssetError, PhysicsError
from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_points, as_positive

MESH_FORMATS = ("obj", "glb", "gltf", "stl")
"""File extensions a box model can be read from."""
MESH_KEY = "mesh"
"""Key of the mesh in a body's record meta."""
MAX_COORDINATE = 1e4
"""Largest vertex coordinate of a mesh file (before ``scale``)."""
MIN_HALF_EXTENT = 0.005
"""A flat mesh (a sign, a sheet) still collides as a box at least 1 cm thick, metres."""


def load_mesh(path: str | Path, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Vertices (V, 3) float64 and triangles (F, 3) int64 of the mesh file ``path`` (all its
    meshes together, scene transforms applied), or an :class:`~twig.errors.AssetError`
    beginning with ``what`` (the object and field)."""
    p = Path(path)
    if p.suffix.lower().lstrip(".") not in MESH_FORMATS:
        raise AssetError(f"{what}: {str(p)!r} is not a mesh file this reads (expected "
                         f"{', '.join('.' + f for f in MESH_FORMATS)})")
    if not p.is_file():
        raise AssetError(f"{what}: mesh file {str(p)!r} does not exist")
    import trimesh  # deferred: only box models need it, and it is slow to import

    try:
        mesh = trimesh.load(str(p), force="mesh")
        vertices = np.asarray(mesh.vertices, dtype=np.float64)
        faces = np.asarray(mesh.faces, dtype=np.int64).reshape(-1, 3)
    except Exception as e:  # trimesh raises many kinds on malformed files
        raise AssetError(f"{what}: cannot read mesh {str(p)!r}: {_first_line(e)}") from None
    if not len(faces):
        raise AssetError(f"{what}: mesh {str(p)!r} has no triangles (not a mesh, or empty)")
    if not np.isfinite(vertices).all():
        raise AssetError(f"{what}: mesh {str(p)!r} has vertices that are not finite numbers")
    if np.abs(vertices).max() > MAX_COORDINATE:
        raise AssetError(f"{what}: mesh {str(p)!r} has vertices farther than "
                         f"{MAX_COORDINATE:g} from its origin (not in metres?)")
    return vertices, faces


def _first_line(error: Exception) -> str:
    """The first line of a library's error message (qhull's run to a page)."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def oriented_box(vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The minimum-volume oriented bounding box of ``vertices`` (V, 3): centre (3,), axes
    (3, 3) rows and half extents (3,), metres.

    The box's axes are ordered and signed to lie closest to the mesh's own y, then x (so a
    model authored upright has its box's y axis up), with ``z = x cross y``.
    """
    to_origin, extents = _oriented_bounds(vertices)
    box_axes = to_origin[:3, :3]
    centre = -box_axes.T @ to_origin[:3, 3]
    order = []
    for world_axis in (1, 0):
        free = [k for k in range(3) if k not in order]
        order.append(max(free, key=lambda k: abs(box_axes[k, world_axis])))
    order.append(next(k for k in range(3) if k not in order))
    y, x = (box_axes[order[i]] * (1.0 if box_axes[order[i], a] >= 0 else -1.0)
            for i, a in ((0, 1), (1, 0)))
    axes = np.stack([x, y, np.cross(x, y)])
    half = 0.5 * np.asarray(extents)[[order[1], order[0], order[2]]]
    return centre, axes, np.maximum(half, MIN_HALF_EXTENT)


def _oriented_bounds(vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """trimesh's (4, 4) transform to the box frame and extents (3,). A flat mesh (a sign, a
    sheet: no thickness) is boxed in its own plane, since trimesh's 3D hull of it needs more
    (its repair of the degenerate hull imports networkx) and would have no thickness anyway."""
    import trimesh

    centre = vertices.mean(axis=0)
    _, sizes, basis = np.linalg.svd(vertices - centre, full_matrices=False)
    if len(sizes) < 3 or sizes[2] > 1e-9 * sizes[0]:
        return trimesh.bounds.oriented_bounds(vertices)
    plane = basis[:2]  # rows: two unit vectors spanning the mesh's plane
    flat, extents = trimesh.bounds.oriented_bounds_2D((vertices - centre) @ plane.T)
    axes = np.vstack([flat[:2, :2] @ plane, basis[2]])
    middle = centre + (-flat[:2, :2].T @ flat[:2, 2]) @ plane
    to_origin = np.eye(4)
    to_origin[:3, :3] = axes
    to_origin[:3, 3] = -axes @ middle
    return to_origin, np.array([extents[0], extents[1], 0.0])


def add_box_model(world: PhysicsWorld, name: str, position: ArrayLike, *, path: str | Path,
                  scale: float = 1.0, mass: float = 10.0, yaw: float = 0.0,
                  velocity: ArrayLike = (0.0, 0.0, 0.0), friction: float = 0.8) -> Body:
    """A prop from the mesh file ``path`` (.obj, .glb, .gltf, .stl): the mesh's origin is put at
    ``position`` (metres), the mesh scaled by ``scale`` and turned ``yaw`` radians about +y.

    It collides as its oriented bounding box, carried by a four-node rigid frame (Jakobsen's
    tetrahedron) sharing ``mass`` (kg); the box's top face is its ``top`` chart. The mesh is
    kept in the body frame for renderers (:func:`body_mesh`). A missing or unreadable file
    raises :class:`~twig.errors.AssetError` and adds nothing.
    """
    scale = as_positive(scale, f"{name}: scale")
    base = as_points(position, f"{name}: position").reshape(3)
    turn = yaw_axes(as_finite(yaw, f"{name}: yaw"))
    mass = as_positive(mass, f"{name}: mass")
    friction = as_friction(friction, f"{name}: friction")
    vel = as_points(velocity, f"{name}: velocity").reshape(3)
    vertices, faces = load_mesh(path, f"{name}: field 'path'")
    vertices = vertices * scale
    if np.ptp(vertices, axis=0).max() < 2 * MIN_HALF_EXTENT:
        raise AssetError(f"{name}: field 'path': mesh {str(path)!r} is smaller than 1 cm")
    try:
        centre, axes, half = oriented_box(vertices)
    except Exception as e:  # a degenerate mesh (all on a line) has no bounding box
        raise AssetError(f"{name}: field 'path': mesh {str(path)!r} has no bounding box (all "
                         f"on a line?): {_first_line(e)}") from None
    # Box frame in world coordinates: the model's own frame turned by yaw.
    box_centre = base + centre @ turn
    box_axes = axes @ turn
    local = (vertices - centre) @ axes.T  # the mesh in the box's frame
    local.flags.writeable = False
    faces.flags.writeable = False
    body = add_box_prop(world, name, "box_model", box_centre, box_axes,
                        tetra_frame((0.0, 0.0, 0.0), half), [((0.0, 0.0, 0.0), tuple(half))],
                        mass=mass, friction=friction, velocity=vel,
                        charts=[("top", (0.0, half[1], 0.0), (half[0], half[2]))],
                        meta={"path": str(path)})
    frame = local_points(world.node_pos[body.nodes], box_centre, box_axes)
    frame.flags.writeable = False
    body_meta(body)[MESH_KEY] = {"vertices": local, "faces": faces, "frame": frame}
    return body


def mesh_pose(body: Body) -> tuple[np.ndarray, np.ndarray]:
    """Rotation (3, 3) and translation (3,) (metres) taking the body's mesh from its body frame
    to the world now: ``world = rotation @ v + translation``. For renderers and exporters that
    move one mesh by a transform per frame."""
    spec = body_meta(body).get(MESH_KEY)
    if spec is None:
        raise PhysicsError(f"{body.name!r} ({body.type}) has no mesh")
    return fit_pose(spec["frame"], body.world.node_pos[body.nodes])


def body_mesh(world: PhysicsWorld, body: Body | str) -> tuple[np.ndarray, np.ndarray]:
    """The mesh of ``body`` (a handle or a name) where it is now: vertices (V, 3) in world
    metres and triangles (F, 3) (indices into the vertices, wound as in the file)."""
    body = world.body(body) if isinstance(body, str) else body
    rotation, translation = mesh_pose(body)
    spec = body_meta(body)[MESH_KEY]
    return spec["vertices"] @ rotation.T + translation, spec["faces"]
