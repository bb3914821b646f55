"""Verlet + projection physics (Jakobsen 2001; Horswill 2009 section VI): the only code that
moves nodes."""

from twig.physics.kernel_cache import use_versioned_cache

use_versioned_cache()

from twig.physics.handles import Body, Link  # noqa: E402  (after choosing the cache)
from twig.physics.world import PhysicsWorld, Snapshot  # noqa: E402

__all__ = ["Body", "Link", "PhysicsWorld", "Snapshot"]
