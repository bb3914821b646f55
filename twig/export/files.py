"""What every exporter shares: its error, the humanoids of a recording, and writing files.

A failed export leaves nothing behind: files are written whole, and when one of several
cannot be written the ones already written are removed.
"""

from __future__ import annotations

import os
from os import PathLike
from pathlib import Path

import numpy as np

from twig.bodies.humanoid import NODE_NAMES
from twig.errors import TwigError, UnknownNameError
from twig.export.recording import RecordedBody, Recording
from twig.export.skeleton import Skeleton, rest_skeleton


class ExportError(TwigError):
    """An export cannot be made: nothing to export, an unwritable path, a bad option."""


def humanoids(recording: Recording, character: str | None = None) -> list[RecordedBody]:
    """The recording's humanoids, or only the one called ``character``."""
    found = [b for b in recording.bodies if b.type == "humanoid"]
    if not found:
        kinds = sorted({f"{b.name} ({b.type})" for b in recording.bodies}) or ["none"]
        raise ExportError(f"the recording has no humanoid to export (bodies: "
                          f"{', '.join(kinds)})")
    if character is None:
        return found
    chosen = [b for b in found if b.name == character]
    if not chosen:
        raise UnknownNameError(f"no humanoid called {character!r} in the recording "
                               f"(humanoids: {', '.join(b.name for b in found)})")
    return chosen


def humanoid_nodes(pos: np.ndarray, body: RecordedBody) -> np.ndarray:
    """(F, 16, 3) positions of ``body``'s nodes in :data:`NODE_NAMES` order from ``pos``."""
    return pos[:, [int(body.columns[body.node_names.index(n)]) for n in NODE_NAMES]]


def humanoid_skeleton(body: RecordedBody) -> Skeleton:
    """The rest skeleton of humanoid ``body``, from its build height and preset."""
    if "height" not in body.meta:
        raise ExportError(f"humanoid {body.name!r} has no build height (meta) to make its "
                          "rest skeleton from")
    return rest_skeleton(body.meta["height"], body.meta.get("preset", "adult"))


def alive(pos: np.ndarray) -> np.ndarray:
    """Indices of the frames in which every node of ``pos`` (F, n, 3) exists."""
    return np.flatnonzero(np.isfinite(pos).all(axis=(1, 2)))


def write_files(contents: dict[Path, bytes]) -> list[Path]:
    """Write each file whole; on failure remove those written and raise :class:`ExportError`."""
    written: list[Path] = []
    for path, data in contents.items():
        try:
            path.write_bytes(data)
        except OSError as e:
            for done in written:
                done.unlink(missing_ok=True)
            raise ExportError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
        written.append(path)
    return written


def check_writable(path: str | PathLike) -> None:
    """Raise :class:`ExportError` now if ``path`` cannot be written later (its folder is
    missing or read-only, or it is a folder), before a long simulation is spent on it."""
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise ExportError(f"cannot write {str(p)!r}: it is a folder")
    if not folder.is_dir():
        raise ExportError(f"cannot write {str(p)!r}: no folder {str(folder)!r}")
    if not os.access(folder, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ExportError(f"cannot write {str(p)!r}: permission denied")


def as_path(path: str | PathLike, *suffixes: str) -> Path:
    """``path`` as a Path, checked to end in one of ``suffixes`` (like ``.bvh``)."""
    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise ExportError(f"{str(p)!r}: expected a file name ending in "
                          f"{' or '.join(suffixes)}")
    return p
