"""twig: lightweight procedural character animation with believable physical interaction.

Stick figures of point-mass nodes joined by rigid links, simulated by Verlet integration and
constraint projection (Jakobsen 2001), after Horswill's Twig (2008/2009).

``import twig`` is quick: :class:`World` and :func:`load_scene` import the simulation (NumPy,
the Numba kernels, every layer) on first use.
"""

import importlib
from typing import TYPE_CHECKING, Any

from twig.errors import AssetError, PhysicsError, SceneError, TwigError, UnknownNameError

if TYPE_CHECKING:
    from twig.scenes import load_scene
    from twig.world import World

__version__ = "0.1.0"

_LAZY = {"World": "twig.world", "load_scene": "twig.scenes"}

__all__ = ["AssetError", "PhysicsError", "SceneError", "TwigError", "UnknownNameError", "World",
           "__version__", "load_scene"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'twig' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
