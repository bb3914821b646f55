"""The links of STIFF nodes have the last word in a tick: more sweeps after the contacts and
friction (Jakobsen 2001, section 8: a different number of iterations for different
constraints)."""

import numpy as np

import twig
from twig.physics import flags
from twig.physics.constraints import FINAL_SWEEPS


def _pulled_ropes(stiff: bool) -> tuple[twig.World, list[twig.physics.Body]]:
    """Two pinned ropes of 8 links, 5 m apart, each with its free end pulled 5 cm up and 5 cm
    back by a set-point move in one tick; the first rope's nodes STIFF if asked."""
    world = twig.World(ground=False)
    ropes = [world.add_rope(f"rope{k}", (0.0, 2.0, 5.0 * k), length=0.8, segments=8,
                            tethers=False) for k in range(2)]
    if stiff:
        world.stiffen(ropes[0].nodes)
    for rope in ropes:
        end = rope.nodes.stop - 1
        world.move_to(end, world.node_pos[end] + (-0.05, 0.05, 0.0), world.dt)
    world.step()
    return world, ropes


def _worst_error(world: twig.World, rope) -> float:
    return float(world.link_errors(rope).max())


def test_stiff_links_end_the_tick_nearer_their_lengths():
    plain, ropes = _pulled_ropes(stiff=False)
    stiff, _ = _pulled_ropes(stiff=True)
    before, after = _worst_error(plain, ropes[0]), _worst_error(stiff, ropes[0])
    assert FINAL_SWEEPS >= 1
    assert before > 0.01  # four iterations leave the pulled rope stretched (2.5 %)
    assert after < 0.7 * before  # 1.4 %


def test_other_bodies_move_as_if_nothing_were_stiff():
    plain, ropes = _pulled_ropes(stiff=False)
    stiff, _ = _pulled_ropes(stiff=True)
    other = ropes[1].nodes
    assert np.array_equal(plain.node_pos[other], stiff.node_pos[other])
    assert not np.array_equal(plain.node_pos[ropes[0].nodes], stiff.node_pos[ropes[0].nodes])


def test_stiffen_sets_and_clears_the_flag():
    world = twig.World()
    body = world.add_humanoid("doll", control=False)
    assert not (world.node_flags[body.nodes] & flags.STIFF).any()
    world.stiffen(body.nodes)
    assert (world.node_flags[body.nodes] & flags.STIFF).all()
    world.stiffen(body.nodes, enabled=False)
    assert not (world.node_flags[body.nodes] & flags.STIFF).any()


def test_characters_under_motor_control_are_stiff_and_rag_dolls_are_not():
    world = twig.World()
    walker = world.add_humanoid("walker")
    doll = world.add_humanoid("doll", (2.0, 0.0, 0.0), control=False)
    assert (world.node_flags[walker.nodes] & flags.STIFF).all()
    assert not (world.node_flags[doll.nodes] & flags.STIFF).any()
