"""Headless rendering with moderngl on an EGL context (Mesa's llvmpipe without a GPU).

:class:`Renderer` draws a frame of :class:`~twig.view.scene.Primitives` the way the live
viewer does: toon-shaded capsules, spheres and boxes in each body's colour, planar shadows on
a ground plane with a grid, meshes (cloth). One instanced draw call per shape, so the cost
hardly grows with the number of characters.
"""

from __future__ import annotations

import math

import numpy as np

from twig.errors import TwigError
from twig.view import shaders, shapes
from twig.view.camera import Camera
from twig.view.scene import Mesh, Primitives, PrimitiveSet
from twig.view.transforms import rotate

EGL_PACKAGES = "libegl1 libegl-mesa0 libgl1-mesa-dri"
"""Debian packages that provide an EGL context without a display (Mesa, software rendering)."""
SHAPES = {"cyl": shapes.cylinder(16), "sph": shapes.sphere(8, 16), "box": shapes.cube()}
"""The instanced meshes of near primitives."""
COARSE = {"cyl": shapes.cylinder(5), "sph": shapes.sphere(2, 5)}
"""Coarse meshes of far capsules and spheres (a box is coarse already)."""
LOD_PIXELS = 4.0
"""Instances with a smaller radius on screen (pixels) are drawn with the coarse mesh."""

Part = tuple[np.ndarray, np.ndarray]
"""Geometry placed on the CPU: vertex rows (V, 9) = position, normal, colour (0..1) and
faces (F, 3) indexing them."""


def placed_part(shape: shapes.Shape, pos: np.ndarray, quat: np.ndarray, scale: np.ndarray,
                color: np.ndarray) -> Part:
    """The instances (n of them) of a unit ``shape`` placed like the instancing shader does:
    ``rotate(quat, v * scale) + pos``, normals ``rotate(quat, n / scale)``."""
    v, nrm, f = shape
    n, k = len(pos), len(v)
    q = np.repeat(quat, k, axis=0)
    s = np.repeat(scale, k, axis=0)
    verts = rotate(q, np.tile(v, (n, 1)) * s) + np.repeat(pos, k, axis=0)
    normals = rotate(q, np.tile(nrm, (n, 1)) / np.maximum(s, 1e-6))
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-12)
    rows = np.hstack([verts, normals, np.repeat(color / 255.0, k, axis=0)])
    faces = (f[None] + (np.arange(n) * k)[:, None, None]).reshape(-1, 3)
    return rows, faces


def mesh_part(mesh: Mesh) -> Part:
    """A body's mesh with smooth normals (area-weighted face normals at each vertex)."""
    v = np.asarray(mesh.vertices, dtype=np.float64)
    f = np.asarray(mesh.faces, dtype=np.int64)
    fn = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
    n = np.zeros_like(v)
    for k in range(3):
        np.add.at(n, f[:, k], fn)
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)
    return np.hstack([v, n, np.tile(np.asarray(mesh.color) / 255.0, (len(v), 1))]), f
SKY = np.array([236, 241, 246]) / 255.0
GROUND = np.array([250, 250, 247]) / 255.0
CELL = np.array([210, 210, 210]) / 255.0
SECTION = np.array([150, 150, 150]) / 255.0
CELL_SIZE = 0.5
"""Grid spacing (m); every fourth line (2 m) is a darker section line, as in the viewer."""
SECTION_SIZE = 2.0
GRID_HALF = 25.0
"""The grid covers +-25 m around the camera target (beyond it the ground fades to sky)."""
LIGHT = np.array([0.35, 0.85, 0.4]) / np.linalg.norm([0.35, 0.85, 0.4])
"""Unit direction toward the sun (casts the shadows, lights the toon tones)."""


class RenderError(TwigError):
    """The video renderer cannot start (no OpenGL context) or cannot write its output."""


def ground_geometry() -> tuple[np.ndarray, np.ndarray]:
    """Vertex rows ``(x, z, r, g, b)`` float32 of the ground plane (two triangles) and of the
    grid lines, both centred on the origin; the renderer moves them under the camera target
    in whole sections."""
    h = GRID_HALF
    corners = np.array([[-h, -h], [h, -h], [h, h], [-h, -h], [h, h], [-h, h]])
    plane = np.hstack([corners, np.tile(GROUND, (6, 1))])
    ticks = np.arange(-h, h + CELL_SIZE / 2, CELL_SIZE)
    section = np.abs(np.round(ticks / SECTION_SIZE) * SECTION_SIZE - ticks) < 1e-9
    color = np.where(section[:, None], SECTION, CELL)
    ends = np.full(len(ticks), h)
    rows = []
    for a, b in ((np.stack([ticks, -ends], 1), np.stack([ticks, ends], 1)),
                 (np.stack([-ends, ticks], 1), np.stack([ends, ticks], 1))):
        rows.append(np.stack([np.hstack([a, color]), np.hstack([b, color])], 1).reshape(-1, 5))
    return plane.astype("f4"), np.concatenate(rows).astype("f4")


def create_context():  # -> moderngl.Context
    """A standalone OpenGL 3.3 context on EGL, or a :class:`RenderError` naming what to
    install."""
    try:
        import moderngl
    except ImportError as e:
        raise RenderError(f"video needs moderngl ({e}); pip install 'twig'") from e
    try:
        return moderngl.create_standalone_context(backend="egl", require=330)
    except Exception as e:  # glcontext raises a bare Exception naming the library
        raise RenderError(
            f"cannot create an OpenGL context on EGL ({e}); install the EGL and Mesa "
            f"packages: apt-get install {EGL_PACKAGES}") from e


def look_at(camera: Camera, aspect: float, near: float = 0.05, far: float = 500.0) -> np.ndarray:
    """Column-major (OpenGL) 4x4 view-projection matrix of ``camera``, float32."""
    f = camera.target - camera.eye
    f = f / np.linalg.norm(f)
    s = np.cross(f, (0.0, 1.0, 0.0))
    if np.linalg.norm(s) < 1e-9:  # looking straight down
        s = np.array([1.0, 0.0, 0.0])
    s = s / np.linalg.norm(s)
    u = np.cross(s, f)
    view = np.eye(4)
    view[0, :3], view[1, :3], view[2, :3] = s, u, -f
    view[:3, 3] = -view[:3, :3] @ camera.eye
    t = 1.0 / math.tan(camera.fov_y / 2.0)
    proj = np.zeros((4, 4))
    proj[0, 0] = t / aspect
    proj[1, 1] = t
    proj[2, 2] = (far + near) / (near - far)
    proj[2, 3] = 2.0 * far * near / (near - far)
    proj[3, 2] = -1.0
    return (proj @ view).T.astype(np.float32)


class Renderer:
    """Draws frames of ``width`` x ``height`` pixels, anti-aliased by FXAA (multisampling
    costs about three times as much on llvmpipe).

    Call :meth:`render` per frame; :meth:`release` frees the GL objects.
    """

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        ctx = create_context()
        self.ctx = ctx
        self._instanced = ctx.program(vertex_shader=shaders.INSTANCE_VERTEX,
                                      fragment_shader=shaders.TOON_FRAGMENT)
        self._mesh = ctx.program(vertex_shader=shaders.MESH_VERTEX,
                                 fragment_shader=shaders.TOON_FRAGMENT)
        self._ground = ctx.program(vertex_shader=shaders.GROUND_VERTEX,
                                   fragment_shader=shaders.GROUND_FRAGMENT)
        self._inst = {}
        self._vao = {}
        for name, (v, n, f) in SHAPES.items():
            vbo = ctx.buffer(np.hstack([v, n]).astype("f4").tobytes())
            ibo = ctx.buffer(f.astype("u4").tobytes())
            inst = ctx.buffer(reserve=13 * 4 * 64, dynamic=True)
            vao = ctx.vertex_array(self._instanced, [
                (vbo, "3f 3f", "in_pos", "in_normal"),
                (inst, "3f 4f 3f 3f/i", "i_pos", "i_quat", "i_scale", "i_color")],
                index_buffer=ibo, index_element_size=4)
            self._inst[name], self._vao[name] = inst, vao
        plane, lines = ground_geometry()
        self._ground_vbos = [ctx.buffer(plane.tobytes()), ctx.buffer(lines.tobytes())]
        self._plane, self._grid = (
            ctx.vertex_array(self._ground, [(vbo, "2f 3f", "in_xz", "in_color")])
            for vbo in self._ground_vbos)
        self._out = ctx.framebuffer(ctx.renderbuffer((width, height), 4))
        self._image = ctx.texture((width, height), 4)
        self._fbo = ctx.framebuffer(self._image, ctx.depth_renderbuffer((width, height)))
        prog = ctx.program(vertex_shader=shaders.SCREEN_VERTEX,
                           fragment_shader=shaders.FXAA_FRAGMENT)
        prog["texel"].value = (1.0 / width, 1.0 / height)
        tri = ctx.buffer(np.array([[-1, -1], [3, -1], [-1, 3]], "f4").tobytes())
        self._fxaa = ctx.vertex_array(prog, [(tri, "2f", "in_xy")])
        for prog in (self._instanced, self._mesh):
            prog["light"].value = tuple(LIGHT)
        self._ground["sky_color"].value = tuple(SKY)

    def _upload(self, shape: str, camera: Camera, pos: np.ndarray, quat: np.ndarray,
                scale: np.ndarray, color: np.ndarray) -> tuple[int, Part | None]:
        """Write the instance rows of one shape's near instances; returns their count and
        the far ones (radius under ``LOD_PIXELS`` on screen) as coarse geometry placed on
        the CPU. Software rasterisers pay per instance and per triangle, and 100 characters
        far away are thousands of tiny spheres: one merged coarse mesh is far cheaper."""
        forward = (camera.target - camera.eye) / np.linalg.norm(camera.target - camera.eye)
        depth = np.maximum((pos - camera.eye) @ forward, 0.05)
        pixels = scale[:, 0] * self.height / (2.0 * math.tan(camera.fov_y / 2.0) * depth)
        far = (pixels < LOD_PIXELS) & (shape in COARSE)
        rows = np.hstack([pos, quat, scale, color / 255.0])[~far].astype("f4")
        if len(rows):
            inst = self._inst[shape]
            if rows.nbytes > inst.size:
                inst.orphan(2 * rows.nbytes)
            inst.write(rows.tobytes())
        coarse = None
        if far.any():
            coarse = placed_part(COARSE[shape], pos[far], quat[far], scale[far], color[far])
        return len(rows), coarse

    def _geometry_vao(self, parts: list[Part]):
        """One indexed vertex array holding ``parts`` (positions, normals, colours)."""
        rows = np.concatenate([p[0] for p in parts]).astype("f4")
        offsets = np.cumsum([0] + [len(p[0]) for p in parts[:-1]])
        faces = np.concatenate([p[1] + o for p, o in zip(parts, offsets, strict=True)])
        vbo = self.ctx.buffer(rows.tobytes())
        ibo = self.ctx.buffer(faces.astype("u4").tobytes())
        vao = self.ctx.vertex_array(self._mesh, [(vbo, "3f 3f 3f", "in_pos", "in_normal",
                                                  "in_color")],
                                    index_buffer=ibo, index_element_size=4)
        return vbo, ibo, vao

    def render(self, spec: PrimitiveSet, prims: Primitives, camera: Camera,
               meshes: list[Mesh] | None = None) -> np.ndarray:
        """The frame as a (height, width, 3) uint8 RGB array (row 0 at the top)."""
        ctx = self.ctx
        mvp = look_at(camera, self.width / self.height)
        counts, parts = {}, [mesh_part(m) for m in meshes or ()]
        for shape, args in (
                ("cyl", (prims.cyl_pos, prims.cyl_quat, prims.cyl_scale, spec.cyl_color)),
                ("sph", (prims.sph_pos, np.tile((1.0, 0.0, 0.0, 0.0), (len(prims.sph_pos), 1)),
                         np.repeat(prims.sph_scale[:, None], 3, axis=1), spec.sph_color)),
                ("box", (prims.box_pos, prims.box_quat, prims.box_scale, spec.box_color))):
            counts[shape], coarse = self._upload(shape, camera, *args)
            if coarse is not None:
                parts.append(coarse)
        mesh = self._geometry_vao(parts) if parts else None
        for prog in (self._instanced, self._mesh, self._ground):
            prog["view_proj"].write(mvp.tobytes())
        self._fbo.use()
        self._fbo.clear(*SKY, 1.0, depth=1.0)
        # Ground and grid first, without depth (nothing else lies in the plane y = 0) ...
        g = self._ground
        snap = np.round(camera.target[[0, 2]] / SECTION_SIZE) * SECTION_SIZE
        g["centre"].value = (float(snap[0]), float(snap[1]))
        g["eye"].value = tuple(float(x) for x in camera.eye)
        g["fade"].value = float(min(GRID_HALF, max(15.0, 3.0 * np.linalg.norm(
            camera.eye - camera.target))))
        ctx.disable(ctx.DEPTH_TEST | ctx.CULL_FACE)
        self._plane.render()
        self._grid.render(mode=ctx.LINES)
        # ... then the shadows: every shape flattened onto the ground along the light,
        # translucent. They share one plane, so with depth testing a pixel covered twice
        # passes once (no darker overlaps).
        ctx.enable(ctx.DEPTH_TEST | ctx.BLEND)
        ctx.blend_func = ctx.SRC_ALPHA, ctx.ONE_MINUS_SRC_ALPHA
        self._draw(counts, mesh, shadow=True)
        ctx.disable(ctx.BLEND)
        self._draw(counts, mesh, shadow=False)
        if mesh is not None:
            for obj in mesh:
                obj.release()
        ctx.disable(ctx.DEPTH_TEST)
        self._out.use()
        self._image.use(0)
        self._fxaa.render()
        raw = self._out.read(components=3, alignment=1)
        return np.frombuffer(raw, np.uint8).reshape(self.height, self.width, 3)[::-1]

    def _draw(self, counts: dict[str, int], mesh, shadow: bool) -> None:
        self._instanced["shadow"].value = shadow
        self._mesh["shadow"].value = shadow
        for name, n in counts.items():
            if n:
                self._vao[name].render(instances=n)
        if mesh is not None:
            mesh[2].render()

    def release(self) -> None:
        """Free the context and everything made on it."""
        self.ctx.release()
