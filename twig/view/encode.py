"""Writing rendered frames: H.264 MP4 and GIF with PyAV (FFmpeg), PNG frames with Pillow."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Protocol

import numpy as np

from twig.view.render import RenderError


class FrameWriter(Protocol):
    """What the writers do: :meth:`write` each (H, W, 3) uint8 frame, then :meth:`close`."""

    def write(self, frame: np.ndarray) -> None: ...

    def close(self) -> None: ...


class Mp4Writer:
    """H.264 (libx264, yuv420p, constant quality ``crf``) in an MP4 container."""

    def __init__(self, path: Path, width: int, height: int, fps: int, crf: int = 23) -> None:
        import av

        if width % 2 or height % 2:
            raise RenderError(f"{path}: H.264 needs an even width and height, got "
                              f"{width}x{height}")
        self._out = av.open(str(path), "w")
        self._stream = self._out.add_stream("libx264", rate=fps)
        self._stream.width, self._stream.height = width, height
        self._stream.pix_fmt = "yuv420p"
        self._stream.options = {"crf": str(crf), "preset": "veryfast"}

    def write(self, frame: np.ndarray) -> None:
        import av

        for packet in self._stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
            self._out.mux(packet)

    def close(self) -> None:
        for packet in self._stream.encode(None):
            self._out.mux(packet)
        self._out.close()


class GifWriter:
    """An animated GIF with one palette made for the whole clip (FFmpeg's palettegen and
    paletteuse), so flat cartoon colours stay flat."""

    def __init__(self, path: Path, width: int, height: int, fps: int) -> None:
        import av

        self._out = av.open(str(path), "w")
        self._stream = self._out.add_stream("gif", rate=fps)
        self._stream.width, self._stream.height = width, height
        self._stream.pix_fmt = "pal8"
        self._time_base = Fraction(1, fps)
        graph = av.filter.Graph()
        src = graph.add_buffer(width=width, height=height, format="rgb24",
                               time_base=self._time_base)
        split = graph.add("split")
        palette = graph.add("palettegen", "stats_mode=full")
        use = graph.add("paletteuse", "dither=none")
        sink = graph.add("buffersink")
        src.link_to(split)
        split.link_to(use, 0, 0)
        split.link_to(palette, 1, 0)
        palette.link_to(use, 0, 1)
        use.link_to(sink)
        graph.configure()
        self._graph = graph
        self._pts = 0

    def _drain(self) -> None:
        import av

        while True:
            try:
                frame = self._graph.vpull()
            except (av.BlockingIOError, av.EOFError):
                return
            for packet in self._stream.encode(frame):
                self._out.mux(packet)

    def write(self, frame: np.ndarray) -> None:
        import av

        f = av.VideoFrame.from_ndarray(frame, format="rgb24")
        f.pts, f.time_base = self._pts, self._time_base
        self._pts += 1
        self._graph.vpush(f)
        self._drain()

    def close(self) -> None:
        self._graph.vpush(None)
        self._drain()
        for packet in self._stream.encode(None):
            self._out.mux(packet)
        self._out.close()


class PngWriter:
    """Numbered PNG files ``frame_00000.png``... in a folder."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self._folder = folder
        self._n = 0

    def write(self, frame: np.ndarray) -> None:
        from PIL import Image

        Image.fromarray(frame).save(self._folder / f"frame_{self._n:05d}.png")
        self._n += 1

    def close(self) -> None:
        """Nothing to flush: every frame is already a file."""


def open_writer(target: str | Path, width: int, height: int, fps: int) -> FrameWriter:
    """The writer for ``target``: ``*.mp4``, ``*.gif``, or a folder (ends with ``/`` or
    exists) for PNG frames."""
    path = Path(target)
    text = str(target)
    if text.endswith(("/", "\\")) or path.is_dir():
        return PngWriter(path)
    suffix = path.suffix.lower()
    if suffix not in (".mp4", ".gif"):
        raise RenderError(f"--video {text}: expected a .mp4 or .gif file, or a folder ending "
                          f"in / for PNG frames")
    if not path.parent.exists():
        raise RenderError(f"--video {text}: folder {str(path.parent)!r} does not exist")
    if suffix == ".mp4":
        return Mp4Writer(path, width, height, fps)
    return GifWriter(path, width, height, fps)
