"""``twig run SCENE --video out.mp4|out.gif|frames/``: simulate and render a clip headless.

The world is stepped frame by frame (``1 / fps`` seconds of ticks each) and every frame is
drawn by :class:`~twig.view.render.Renderer` from the same primitives the live viewer shows,
framed by a :class:`~twig.view.camera.SmoothCamera`, optionally captioned, and encoded.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_positive
from twig.view.camera import SmoothCamera
from twig.view.encode import open_writer
from twig.view.providers import inspect
from twig.view.render import Renderer, RenderError
from twig.view.scene import build_layout, frame_meshes, place

CAPTION_FIELDS = ("behavior", "focus", "pain", "touching")
"""Inspection fields shown in a character's caption, when its providers give them."""


@dataclass(frozen=True)
class VideoStats:
    """What :func:`render_video` did: ``frames`` written, ``seconds`` of wall time spent
    (simulation, rendering and encoding), the simulated ``sim_seconds``, and
    ``step_seconds``, the part of ``seconds`` spent stepping the world."""

    frames: int
    seconds: float
    sim_seconds: float
    step_seconds: float = 0.0

    @property
    def speed(self) -> float:
        """Simulated seconds per wall-clock second (above 1: faster than real time)."""
        return self.sim_seconds / self.seconds if self.seconds > 0 else float("inf")


def parse_size(text: str) -> tuple[int, int]:
    """``"640x360"`` -> (640, 360); a :class:`RenderError` for anything else."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise RenderError(f"--video-size: expected WIDTHxHEIGHT like 640x360, got {text!r}"
                          ) from None
    if not (16 <= w <= 7680 and 16 <= h <= 4320):
        raise RenderError(f"--video-size: {w}x{h} is outside 16x16 .. 7680x4320")
    return w, h


def caption_lines(world: PhysicsWorld, body: Body | None) -> list[str]:
    """The caption: simulated time, then ``body``'s behaviour, focus, pain and touch (from
    the inspection providers) when a body is given."""
    lines = [f"t = {world.time:5.2f} s"]
    if body is not None:
        fields = inspect(world, body)
        parts = [f"{k} {_short(fields[k])}" for k in CAPTION_FIELDS if k in fields]
        lines.append(f"{body.name}: " + ", ".join(parts))
    return lines


def _short(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.1f}"
    if isinstance(value, list | tuple):
        return "+".join(str(v) for v in value) or "nothing"
    return str(value)


def draw_caption(frame: np.ndarray, lines: list[str]) -> np.ndarray:
    """``frame`` with ``lines`` written at its top left on a translucent white band (only
    the band's pixels are touched)."""
    from PIL import Image, ImageDraw, ImageFont

    size = max(12, frame.shape[0] // 24)
    font = ImageFont.load_default(size=size)
    pad = size // 2
    width = round(max(font.getlength(line) for line in lines)) + 2 * pad
    height = len(lines) * (size + 4) + 2 * pad
    width, height = min(width, frame.shape[1]), min(height, frame.shape[0])
    out = frame.copy()
    band = out[:height, :width].astype(np.float32)
    band += (255.0 - band) * (170 / 255)
    image = Image.fromarray(band.astype(np.uint8))
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((pad, pad + i * (size + 4)), line, font=font, fill=(30, 30, 30))
    out[:height, :width] = np.asarray(image)
    return out


def render_video(world: PhysicsWorld, target: str | Path, seconds: float, *,
                 size: tuple[int, int] = (640, 360), fps: int = 30, captions: bool = True,
                 caption_body: str | None = None, follow: str | None = None,
                 console: Console | None = None) -> VideoStats:
    """Simulate ``seconds`` of ``world`` and write them to ``target`` at ``fps`` frames per
    second.

    Parameters
    ----------
    target
        ``*.mp4`` (H.264), ``*.gif``, or a folder (``frames/``) for numbered PNG files.
    size
        (width, height) in pixels.
    captions
        Write the simulated time (and ``caption_body``'s state) on each frame.
    caption_body, follow
        Names of a body to caption, and of a body the camera follows (default: frame all).
    console
        Where to show a progress bar (None: no bar).

    Frame ``k`` shows the world at ``t0 + k / fps``; after the last frame the world is
    stepped on to exactly ``seconds`` past its start.
    """
    seconds = as_positive(seconds, "seconds")
    if not (isinstance(fps, int) and 1 <= fps <= 120):
        raise RenderError(f"fps must be an integer in 1..120, got {fps!r}")
    width, height = size
    start_tick = world.tick
    body = world.body(caption_body) if caption_body else None
    camera = SmoothCamera(width / height, world.body(follow) if follow else None)
    n_frames = max(1, round(seconds * fps))
    renderer = Renderer(width, height)
    writer = open_writer(target, width, height, fps)
    t0 = time.perf_counter()
    stepping = 0.0
    layout = build_layout(world)
    try:
        with Progress(TextColumn("rendering {task.description}"), BarColumn(),
                      MofNCompleteColumn(), TextColumn("frames"), TimeRemainingColumn(),
                      console=console, disable=console is None, transient=True) as bar:
            task = bar.add_task(str(target), total=n_frames)
            for k in range(n_frames):
                t_step = time.perf_counter()
                world.step(start_tick + round(k / (fps * world.dt)) - world.tick)
                stepping += time.perf_counter() - t_step
                if layout.version != world.topology_version:
                    layout = build_layout(world)
                frame = renderer.render(layout.look, place(layout.look, world.node_pos),
                                        camera.update(world, 1.0 / fps),
                                        frame_meshes(world, layout))
                if captions:
                    frame = draw_caption(frame, caption_lines(world, body))
                writer.write(frame)
                bar.update(task, advance=1)
    finally:
        writer.close()
        renderer.release()
    t_step = time.perf_counter()
    world.step(max(0, start_tick + round(seconds / world.dt) - world.tick))
    stepping += time.perf_counter() - t_step
    return VideoStats(n_frames, time.perf_counter() - t0, (world.tick - start_tick) * world.dt,
                      stepping)
