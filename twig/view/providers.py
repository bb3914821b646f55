"""The viewer's providers of every layer (see :mod:`twig.view.registry`): importing this
module registers them, in layer order, and re-exports the registry."""

# isort: off
from twig.view import physics_layer  # noqa: F401  (first: later fields override earlier)
from twig.view import motor_layer  # noqa: F401
from twig.view import behavior_layer  # noqa: F401
from twig.view import hybrid_layer  # noqa: F401
# isort: on
from twig.view.registry import (
    INSPECTORS,
    MESHES,
    OVERLAYS,
    Inspector,
    MeshSource,
    Overlay,
    Segments,
    add_inspector,
    add_mesh,
    add_overlay,
    inspect,
    overlay_segments,
)

__all__ = ["INSPECTORS", "MESHES", "OVERLAYS", "Inspector", "MeshSource", "Overlay",
           "Segments", "add_inspector", "add_mesh", "add_overlay", "inspect",
           "overlay_segments"]
