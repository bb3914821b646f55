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

The motor and behaviour layers add theirs with :func:`add_inspector` and :func:`add_overlay`;
built in are the physics inspector (pain, speed, touch, sleep), a velocity overlay and the
cloth mesh.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from twig.errors import TwigError
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


def physics_fields(world: PhysicsWorld, body: Body) -> dict[str, Any]:
    """Built-in inspector: type, pain (J, decaying; Horswill VI.E), speed of the body's mean
    velocity (m/s), what other bodies touched it in the last half second, and whether it
    sleeps."""
    touched = set(world.touched(body, within=0.5)) - {body.name}
    return {
        "type": body.type,
        "pain": round(world.pain(body), 4),
        "speed": round(float(np.linalg.norm(body.velocity)), 4),
        "touching": sorted(touched),
        "asleep": world.is_asleep(body),
    }


VELOCITY_SECONDS = 0.5
"""The velocity overlay draws where each body's centre would be this many seconds ahead."""


def velocity_segments(world: PhysicsWorld) -> Segments | None:
    """Built-in overlay: each moving body's centroid and mean velocity (times 0.5 s)."""
    bodies = [b for b in world.bodies if (world.node_inv_mass[b.nodes] > 0).any()]
    if not bodies:
        return None
    start = np.array([b.centroid for b in bodies])
    vel = np.array([b.velocity for b in bodies])
    moving = np.linalg.norm(vel, axis=1) > 0.05
    return Segments(start[moving], start[moving] + VELOCITY_SECONDS * vel[moving])


def cloth_mesh(world: PhysicsWorld, body: Body) -> tuple[np.ndarray, np.ndarray]:
    """Built-in mesh of a cloth (:func:`twig.bodies.cloth.add_cloth`): its node grid, two
    triangles per cell."""
    pos = world.node_pos[body.nodes]
    n = round(len(pos) ** 0.5)
    if n * n != len(pos):
        raise TwigError(f"cloth {body.name!r} has {len(pos)} nodes, not a square grid")
    idx = np.arange(n * n).reshape(n, n)
    a, b = idx[:-1, :-1].ravel(), idx[:-1, 1:].ravel()
    c, d = idx[1:, :-1].ravel(), idx[1:, 1:].ravel()
    faces = np.concatenate([np.stack([a, c, b], axis=1), np.stack([b, c, d], axis=1)])
    return pos.copy(), faces.astype(np.uint32)


add_inspector("physics", physics_fields)
add_overlay("velocity", velocity_segments, color=(30, 30, 30))
add_mesh("cloth", cloth_mesh)

# The motor layer's fields, overlays and mesh props (after the registry exists).
from twig.view import motor_layer  # noqa: E402, F401
