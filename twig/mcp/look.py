"""An image of the current frame for an agent: the headless renderer of ``twig run --video``.

The geometry of the frame is copied on the world's thread (cheap); it is drawn and encoded on
one rendering thread of its own, which owns the OpenGL context, so the world keeps its tick
rate while a picture is made.
"""

from __future__ import annotations

import asyncio
import io
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from twig.physics import PhysicsWorld
from twig.view.camera import Camera, overview, view_direction
from twig.view.scene import Mesh, Primitives, PrimitiveSet, build_layout, frame_meshes, place
from twig.view.video import caption_lines, draw_caption

MAX_SIDE = 1920
"""Largest image width or height, pixels."""
MIN_SIDE = 64


@dataclass(frozen=True)
class Frame:
    """What one picture shows, copied from the world: shapes, camera and caption lines."""

    look: PrimitiveSet
    prims: Primitives
    meshes: list[Mesh]
    camera: Camera
    caption: list[str]


def capture(world: PhysicsWorld, size: tuple[int, int], follow: str | None = None,
            caption: bool = True) -> Frame:
    """Copy the current frame of ``world`` (call on its thread): every body from the viewer's
    default direction, framed to show what moves, or centred on the body ``follow``."""
    layout = build_layout(world)
    aspect = size[0] / size[1]
    camera = overview(world, aspect)
    body = world.body(follow) if follow else None
    if body is not None:
        centre = np.asarray(body.centroid, dtype=np.float64)
        distance = float(np.linalg.norm(camera.eye - camera.target))
        camera = Camera(centre + view_direction() * min(distance, 6.0), centre)
    lines = caption_lines(world, body) if caption else []
    return Frame(layout.look, place(layout.look, world.node_pos),
                 frame_meshes(world, layout), camera, lines)


class Painter:
    """Draws :class:`Frame` objects to PNG bytes on its own thread (one OpenGL context)."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="twig-look")
        self._renderer = None

    async def png(self, frame: Frame, size: tuple[int, int]) -> bytes:
        """The frame as a PNG file of ``size`` (width, height) pixels."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self._paint, frame, size)

    def _paint(self, frame: Frame, size: tuple[int, int]) -> bytes:
        from PIL import Image

        from twig.view.render import Renderer

        renderer = self._renderer
        if renderer is None or (renderer.width, renderer.height) != size:
            if renderer is not None:
                renderer.release()
            renderer = self._renderer = Renderer(*size)
        pixels = renderer.render(frame.look, frame.prims, frame.camera, frame.meshes)
        if frame.caption:
            pixels = draw_caption(pixels, frame.caption)
        out = io.BytesIO()
        Image.fromarray(pixels).save(out, format="PNG")
        return out.getvalue()

    def close(self) -> None:
        """Free the OpenGL context and stop the thread."""
        def release() -> None:
            if self._renderer is not None:
                self._renderer.release()
                self._renderer = None

        self._pool.submit(release)
        self._pool.shutdown(wait=True)
