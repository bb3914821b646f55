"""The viewer's 3D scene in viser: batched handles updated in one atomic message per frame.

Every primitive of one kind (all capsule bodies, all spheres, all boxes) is one batched mesh
handle, so a frame of 100 characters is a handful of array assignments grouped by
``server.atomic()``, not thousands of messages. Handles are rebuilt only when the world's
topology changes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from twig.view import shapes
from twig.view.providers import OVERLAYS, Segments
from twig.view.scene import Layout, Mesh, Primitives, PrimitiveSet, place

VOLUME_COLOR = (0, 200, 255)
"""Colour of the collision volumes, drawn translucent over the look (wireframes would be
clearer but are far too slow for software WebGL)."""
VOLUME_OPACITY = 0.35
CONTACT_COLOR = (255, 40, 40)
"""Colour of contact points."""
SHAPES = {"cyl": shapes.cylinder, "sph": shapes.sphere, "box": shapes.cube}


def linear_rgb(color: np.ndarray) -> np.ndarray:
    """8-bit sRGB colours as the 8-bit linear values viser expects (its renderer encodes
    to sRGB on output), so a page shows the palette's colours, as the video does."""
    c = np.asarray(color, dtype=np.float64) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return np.round(255.0 * lin).astype(np.uint8)


def _rgb(color: tuple[int, int, int]) -> tuple[int, int, int]:
    r, g, b = linear_rgb(color).tolist()
    return r, g, b


class BatchedPrimitives:
    """One batched mesh handle per unit shape for a :class:`PrimitiveSet`.

    ``on_pick(body_id)`` is called when an instance is clicked (None: not clickable).
    """

    def __init__(self, server, prefix: str, spec: PrimitiveSet, *, ghost: bool = False,
                 visible: bool = True, on_pick: Callable[[int], None] | None = None) -> None:
        self.spec = spec
        self.handles = {}
        bodies = {"cyl": spec.cyl_body, "sph": spec.sph_body, "box": spec.box_body}
        colors = {"cyl": spec.cyl_color, "sph": spec.sph_color, "box": spec.box_color}
        for name, make in SHAPES.items():
            n = len(bodies[name])
            if not n:
                continue
            v, _, f = make()
            color = np.tile(VOLUME_COLOR, (n, 1)) if ghost else colors[name]
            handle = server.scene.add_batched_meshes_simple(
                f"{prefix}/{name}", v.astype(np.float32), f,
                batched_wxyzs=np.tile((1.0, 0.0, 0.0, 0.0), (n, 1)).astype(np.float32),
                batched_positions=np.zeros((n, 3), np.float32),
                batched_scales=np.ones((n, 3), np.float32), batched_colors=linear_rgb(color),
                lod="off",
                opacity=VOLUME_OPACITY if ghost else None,
                material="toon3", flat_shading=name == "box",
                cast_shadow=not ghost, receive_shadow=not ghost, visible=visible)
            if on_pick is not None:
                handle.on_click(_picker(bodies[name], on_pick))
            self.handles[name] = handle

    def update(self, pos: np.ndarray) -> Primitives:
        """Move every instance to node positions ``pos`` (N, 3) m."""
        prims = place(self.spec, pos)
        f32 = np.float32
        for name, handle in self.handles.items():
            if name == "cyl":
                p, q, s = prims.cyl_pos, prims.cyl_quat, prims.cyl_scale
            elif name == "sph":
                p, q = prims.sph_pos, None
                s = np.repeat(prims.sph_scale[:, None], 3, axis=1)
            else:
                p, q, s = prims.box_pos, prims.box_quat, prims.box_scale
            handle.batched_positions = p.astype(f32)
            if q is not None:
                handle.batched_wxyzs = q.astype(f32)
            handle.batched_scales = s.astype(f32)
        return prims

    @property
    def visible(self) -> bool:
        return all(h.visible for h in self.handles.values())

    @visible.setter
    def visible(self, value: bool) -> None:
        for h in self.handles.values():
            h.visible = value

    def remove(self) -> None:
        for h in self.handles.values():
            h.remove()
        self.handles = {}


def _picker(body_of_instance: np.ndarray, on_pick: Callable[[int], None]):
    def clicked(event) -> None:
        if event.instance_index is not None and event.instance_index < len(body_of_instance):
            on_pick(int(body_of_instance[event.instance_index]))
    return clicked


class SceneDrawing:
    """Everything the viewer draws: ground, lights, the look, collision volumes, meshes,
    contact points, overlays and the inspected body's label."""

    def __init__(self, server, on_pick: Callable[[int], None]) -> None:
        self.server = server
        self.on_pick = on_pick
        scene = server.scene
        scene.set_up_direction("+y")
        scene.add_grid("/ground", width=50.0, height=50.0, plane="xz", cell_size=0.5,
                       section_size=2.0, shadow_opacity=0.3,
                       plane_color=_rgb((250, 250, 247)), plane_opacity=0.0,
                       cell_color=_rgb((210, 210, 210)), section_color=_rgb((150, 150, 150)),
                       position=(0.0, -0.001, 0.0))
        scene.configure_default_lights(enabled=True, cast_shadow=True)
        self.layout: Layout | None = None
        self.look: BatchedPrimitives | None = None
        self.volumes: BatchedPrimitives | None = None
        self.meshes: dict[str, object] = {}
        self.contacts = scene.add_point_cloud(
            "/contacts", np.zeros((1, 3), np.float32), CONTACT_COLOR, point_size=0.05,
            point_shape="circle", visible=False)
        self.overlays: dict[str, object] = {}
        self.label = scene.add_label("/inspected", "", visible=False, anchor="bottom-center")

    def set_layout(self, layout: Layout, show_volumes: bool) -> None:
        """Rebuild the handles for a new topology."""
        for group in (self.look, self.volumes):
            if group is not None:
                group.remove()
        for handle in self.meshes.values():
            handle.remove()
        self.meshes = {}
        self.look = BatchedPrimitives(self.server, "/look", layout.look, on_pick=self.on_pick)
        self.volumes = BatchedPrimitives(self.server, "/volumes", layout.volumes,
                                         ghost=True, visible=show_volumes)
        self.layout = layout

    def update_meshes(self, meshes: list[Mesh]) -> None:
        """Replace the vertices of mesh bodies (made on first sight)."""
        for mesh in meshes:
            name = mesh.name
            handle = self.meshes.get(name)
            vertices = np.asarray(mesh.vertices, np.float32)
            if handle is None or len(handle.vertices) != len(vertices):
                if handle is not None:
                    handle.remove()
                self.meshes[name] = self.server.scene.add_mesh_simple(
                    f"/meshes/{name}", vertices, np.asarray(mesh.faces, np.uint32),
                    color=_rgb(mesh.color), material="toon3", side="double")
            else:
                handle.vertices = vertices

    def update_contacts(self, points: np.ndarray | None) -> None:
        """Show ``points`` (C, 3) m as red dots; None or empty hides them."""
        if points is None or not len(points):
            self.contacts.visible = False
            return
        self.contacts.points = points.astype(np.float32)
        self.contacts.colors = np.tile(CONTACT_COLOR, (len(points), 1)).astype(np.uint8)
        self.contacts.visible = True

    def update_overlays(self, overlays: dict[str, Segments]) -> None:
        """Draw each shown overlay's segments; hide the others."""
        for label, handle in self.overlays.items():
            if label not in overlays:
                handle.visible = False
        for label, seg in overlays.items():
            points = np.stack([seg.start, seg.end], axis=1).astype(np.float32)
            handle = self.overlays.get(label)
            if handle is not None and len(handle.points) == len(points):
                handle.points = points
                handle.visible = len(points) > 0
                continue
            if handle is not None:
                handle.remove()
            color = OVERLAYS[label].color if label in OVERLAYS else (40, 40, 40)
            self.overlays[label] = self.server.scene.add_line_segments(
                f"/overlays/{label}", points if len(points) else np.zeros((1, 2, 3), np.float32),
                colors=color, thickness=0.02, visible=len(points) > 0)

    def update_label(self, text: str | None, position: np.ndarray | None) -> None:
        """The inspected body's name above it (None: hidden)."""
        if text is None or position is None:
            self.label.visible = False
            return
        self.label.text = text
        self.label.position = tuple(float(v) for v in position)
        self.label.visible = True
