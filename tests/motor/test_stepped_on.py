"""A planted foot that something immovable presses (another character's stepping foot, a
kinematic prop) does not throw the knee: the contact's only movable node is then the knee,
at a small coefficient of the shin capsule, and Jakobsen's rule alone moves it by the overlap
divided by that coefficient (issue #33: the playground's knees flew metres for one tick)."""

import numpy as np

import twig
from twig.physics.flags import LOCKED


def test_a_knee_over_a_planted_foot_pressed_by_something_immovable_stays_put():
    world = twig.World(seed=0)
    parent = world.add_humanoid("parent")
    world.run(0.5)
    knee, foot = parent.node("r_knee"), parent.node("r_foot")
    assert world.node_flags[foot] & LOCKED  # planted
    vols = world.volumes
    shin = np.flatnonzero((vols["nodes"][:, 0] == knee) & (vols["nodes"][:, 1] == foot))
    radius = float(vols["radius"][shin[0]])
    k, f = world.node_pos[knee].copy(), world.node_pos[foot].copy()
    up = (k - f) / np.linalg.norm(k - f)
    side = np.cross(up, (1.0, 0.0, 0.0))
    side /= np.linalg.norm(side)
    # A locked 2 cm stick across the shin, 1.5 cm into it, half a percent of the shin above
    # the foot (as a child's stepping foot lands on its parent's).
    centre = f + 0.005 * (k - f) + side * (radius + 0.02 - 0.015)
    stick = world.add_stick("foot", centre, length=0.3, direction=np.cross(up, side))
    world.lock_nodes(stick.nodes)
    for _ in range(5):
        before = world.node_pos.copy()
        world.step()
        # The overlap is 1.5 cm: no node moves more than a few centimetres to repair it
        # (before the fix the knee jumped 20 cm, 12 m/s, in the first tick).
        assert np.linalg.norm(world.node_pos - before, axis=1).max() < 0.05
