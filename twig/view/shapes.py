"""Unit shapes every primitive is an instance of: a cylinder, a sphere and a cube.

A capsule is drawn as a cylinder scaled to its radius and length plus a sphere at each end
(Horswill 2009, section V: links are rounded cylinders); a box volume is the unit cube scaled
to its extents. Each shape is ``(vertices (V, 3), normals (V, 3), faces (F, 3))`` with
counter-clockwise faces seen from outside.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from twig.export.meshes import box

Shape = tuple[np.ndarray, np.ndarray, np.ndarray]


@cache
def cylinder(segments: int = 16) -> Shape:
    """Open cylinder of radius 1 and length 1 along z, centred on the origin (the caps are
    the capsule's end spheres)."""
    angle = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
    ring = np.stack([np.cos(angle), np.sin(angle), np.zeros(segments)], axis=1)
    half = np.array([0.0, 0.0, 0.5])
    verts = np.concatenate([ring - half, ring + half])
    normals = np.concatenate([ring, ring])
    i = np.arange(segments)
    j = (i + 1) % segments
    faces = np.concatenate([np.stack([i, j, j + segments], axis=1),
                            np.stack([i, j + segments, i + segments], axis=1)])
    return verts, normals, faces.astype(np.uint32)


@cache
def sphere(rings: int = 8, segments: int = 16) -> Shape:
    """UV sphere of radius 1 centred on the origin."""
    theta = np.linspace(0.0, np.pi, rings + 1)
    phi = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    verts = np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)],
                     axis=-1).reshape(-1, 3)
    r = np.arange(rings)[:, None]
    s = np.arange(segments)[None, :]
    a = r * segments + s
    b = r * segments + (s + 1) % segments
    c = a + segments
    d = b + segments
    faces = np.concatenate([np.stack([a, c, d], axis=-1).reshape(-1, 3),
                            np.stack([a, d, b], axis=-1).reshape(-1, 3)])
    # Drop the degenerate triangles at the poles.
    keep = (faces[:, 0] >= segments) | (faces[:, 2] >= segments) | (faces[:, 1] >= segments)
    faces = faces[keep]
    area = np.linalg.norm(np.cross(verts[faces[:, 1]] - verts[faces[:, 0]],
                                   verts[faces[:, 2]] - verts[faces[:, 0]]), axis=1)
    return verts, verts.copy(), faces[area > 1e-12].astype(np.uint32)


@cache
def cube() -> Shape:
    """Cube of side 1 centred on the origin, four vertices per face (flat normals): the
    exporter's box mesh, so a video and a glTF file draw the same box."""
    mesh = box(np.full(3, 0.5))
    return mesh.positions, mesh.normals, mesh.indices.astype(np.uint32)
