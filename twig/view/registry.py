"""What the viewer and the video show beyond bodies: the extension points of the layers above.

Physics knows nothing of behaviours, so the viewer asks registered *providers* (plain
functions, called on the thread that owns the world, between ticks):

- **inspectors** ``fn(world, body) -> dict | None``: fields of the inspection panel for one
  body. Values are plain: a number (shown, and plotted over the last seconds), a string or
  bool (shown), a list of strings (shown comma-separated: running actions), or a dict of
  numbers (one plot with a line each: the activation of every behaviour). ``None`` (or an
  empty dict) when the provider has nothing to say about that body. Later fields with the
  same name override earlier ones.
- **overlays** ``fn(world) -> Segments | None``: line segments drawn over the scene when the
  overlay's toggle is on in the page (walk vectors, gaze lines).
- **meshes** ``fn(world, body) -> (vertices (V, 3) m, faces (F, 3))``: how to draw bodies of
  one type as a triangle mesh instead of capsules (cloth, mesh props).

Each layer's providers live in a module of this package (``physics_layer``, ``motor_layer``,
``behavior_layer``, ``hybrid_layer``) that registers them with :func:`add_inspector`,
:func:`add_overlay` and :func:`add_mesh`; importing :mod:`twig.view.providers` registers them
all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from twig.physics import Body, PhysicsWorld

Inspector = Callable[[PhysicsWorld, Body], Mapping[str, Any] | None]
MeshSource = Callable[[PhysicsWorld, Body], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class Segments:
    """Line segments of an overlay: ``start`` and ``end`` (K, 3) in metres."""

    start: np.ndarray
    end: np.ndarray


OverlaySource = Callable[[PhysicsWorld], Segments | None]


@dataclass(frozen=True)
class Overlay:
    """A registered overlay: its toggle's label, its source and its colour (8-bit RGB)."""

    label: str
    source: OverlaySource
    color: tuple[int, int, int]


INSPECTORS: dict[str, Inspector] = {}
OVERLAYS: dict[str, Overlay] = {}
MESHES: dict[str, MeshSource] = {}


def add_inspector(name: str, fn: Inspector) -> None:
    """Register (or replace) the inspection provider ``name``."""
    INSPECTORS[name] = fn


def add_overlay(label: str, fn: OverlaySource, color: tuple[int, int, int] = (40, 40, 40)
                ) -> None:
    """Register (or replace) an overlay with a toggle called ``label`` in the page."""
    OVERLAYS[label] = Overlay(label, fn, color)


def add_mesh(body_type: str, fn: MeshSource) -> None:
    """Draw bodies of ``body_type`` as the triangle mesh ``fn(world, body)`` returns."""
    MESHES[body_type] = fn


def inspect(world: PhysicsWorld, body: Body) -> dict[str, Any]:
    """Every inspector's fields for ``body``, merged in registration order. A provider that
    fails shows its error as a field (``"<name> error"``) instead of stopping the viewer
    and the simulation loop it runs on."""
    out: dict[str, Any] = {}
    for name, fn in INSPECTORS.items():
        try:
            fields = fn(world, body)
        except Exception as e:  # a provider's bug must not stop the world's thread
            fields = {f"{name} error": f"{type(e).__name__}: {e}"}
        if fields:
            out.update(fields)
    return out


def overlay_segments(world: PhysicsWorld, label: str) -> tuple[Segments, str | None]:
    """The segments of overlay ``label`` now (none if it is not registered or returns
    None) and the error it raised, if any (a failing overlay must not stop the world's
    thread; the page shows the error)."""
    overlay = OVERLAYS.get(label)
    none = Segments(np.zeros((0, 3)), np.zeros((0, 3)))
    try:
        seg = overlay.source(world) if overlay is not None else None
    except Exception as e:  # a provider's bug must not stop the world's thread
        return none, f"{label} overlay: {type(e).__name__}: {e}"
    return (seg if seg is not None else none), None
