"""twig: lightweight procedural character animation with believable physical interaction.

Stick figures of point-mass nodes joined by rigid links, simulated by Verlet integration and
constraint projection (Jakobsen 2001), after Horswill's Twig (2008/2009).
"""

import twig.behavior  # noqa: F401  (installs kid.behavior, the viewer's behaviour fields)
from twig import hybrid  # noqa: F401  (registers play-clip, motion-graph-walk...)
from twig.errors import AssetError, PhysicsError, SceneError, TwigError, UnknownNameError
from twig.scenes import load_scene
from twig.world import World

__version__ = "0.1.0"

__all__ = ["AssetError", "PhysicsError", "SceneError", "TwigError", "UnknownNameError", "World",
           "__version__", "load_scene"]
