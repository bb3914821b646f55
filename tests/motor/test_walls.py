"""Walking into a wall (issue #33, item 10): a child chasing a ball against the playground's
fence walked on into it; its stepping foot, driven kinematically, went through the fence and
dragged the leg up it, and the knees bent backwards (83 frames in 180 s at seed 2)."""

import numpy as np
import pytest

import twig
from twig.batch.believability import knee_backwards

LEGS = ("l_hip", "r_hip", "pelvis", "neck", "l_hip", "l_knee", "l_foot", "r_hip", "r_knee",
        "r_foot")
FENCE = 1.0  # z of the wall, m


@pytest.mark.parametrize("velocity", [(1.2, 0.0, 0.5), (0.0, 0.0, 1.3)])
def test_a_child_walking_into_a_fence_keeps_its_knees_forward_and_its_feet_in(velocity):
    world = twig.World(seed=0)
    world.add_box_bounds((-12.0, 0.0, -12.0), (12.0, 20.0, FENCE))
    kid = world.add_humanoid("kid", (0.0, 0.0, 0.5), preset="child", height=1.25)
    kid.walk(velocity)
    cols = np.array([kid.node(n) for n in LEGS])
    feet = [kid.node("l_foot"), kid.node("r_foot")]
    radius = world.nodes["radius"][feet[0]]
    leg = kid.motor_table["leg"][kid.motor_row]
    frames, reach, deepest = [], 0.0, -np.inf
    for k in range(round(6.0 / world.dt)):
        world.step()
        p = world.node_pos
        deepest = max(deepest, float(p[feet, 2].max()) + radius - FENCE)
        reach = max(reach, max(float(np.linalg.norm(p[cols[3 * s + 4]] - p[cols[3 * s + 6]]))
                               for s in (0, 1)) / leg)
        if k % 2 == 0:  # 30 fps frames
            frames.append(p[cols].copy())
        assert kid.upright
    assert knee_backwards(np.array(frames), np.arange(len(LEGS))).sum() == 0
    assert deepest < 0.002  # no foot through the fence (a kinematic foot it cannot stop)
    assert reach < 1.015    # no leg dragged straight past its length
    # It walks along the fence (or stops at it), not on against it.
    before = kid.hips.copy()
    world.run(seconds=1.0)
    assert abs(kid.hips[2] - before[2]) < 0.01 and FENCE - kid.hips[2] > 0.06
    assert abs(kid.hips[0] - before[0]) > 0.5 * abs(velocity[0])
