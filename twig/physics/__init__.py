"""Verlet + projection physics (Jakobsen 2001; Horswill 2009 section VI): the only code that
moves nodes."""

from twig.physics.handles import Body, Link
from twig.physics.world import PhysicsWorld, Snapshot

__all__ = ["Body", "Link", "PhysicsWorld", "Snapshot"]
