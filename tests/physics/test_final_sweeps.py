"""The links of STIFF nodes have the last word in a tick: more sweeps after the contacts and
friction (Jakobsen 2001, section 8: a different number of iterations for different
constraints)."""

import numpy as np

import twig
from twig.physics import flags
from twig.physics.constraints import rigid_prefix
from twig.physics.final_sweeps import (
    FINAL_NEED,
    FINAL_STRETCH,
    FINAL_STRUCK,
    FINAL_SWEEPS,
    relax_final,
)
from twig.physics.records import Collision, Constraints, Nodes, Pairs
from twig.physics.tick import array_records


def _pulled_ropes(stiff: bool, ticks: int = 1, step: float = 0.05) -> tuple[twig.World, list]:
    """Two pinned ropes of 8 links, 5 m apart, each with its free end pulled ``step`` m up
    and back by a set-point move each tick for ``ticks`` ticks; the first rope's nodes STIFF if
    asked."""
    world = twig.World(ground=False)
    ropes = [world.add_rope(f"rope{k}", (0.0, 2.0, 5.0 * k), length=0.8, segments=8,
                            tethers=False) for k in range(2)]
    if stiff:
        world.stiffen(ropes[0].nodes)
    for _ in range(ticks):
        for rope in ropes:
            end = rope.nodes.stop - 1
            world.move_to(end, world.node_pos[end] + (-step, step, 0.0), world.dt)
        world.step()
    return world, ropes


def _worst_error(world: twig.World, rope) -> float:
    return float(world.link_errors(rope).max())


def test_stiff_links_end_the_tick_nearer_their_lengths():
    """Pulled at 0.85 m/s, slower than a struck link (FINAL_STRUCK), the plain rope gets no
    final sweeps."""
    plain, ropes = _pulled_ropes(stiff=False, ticks=20, step=0.01)
    stiff, _ = _pulled_ropes(stiff=True, ticks=20, step=0.01)
    before, after = _worst_error(plain, ropes[0]), _worst_error(stiff, ropes[0])
    assert FINAL_SWEEPS >= 1
    assert before > 0.03  # four iterations leave the pulled rope stretched (5.0 %)
    assert after < 0.8 * before  # 3.4 %


def test_a_struck_limp_figure_keeps_its_links():
    """A limp adult dropped from 1 m: its nodes are not STIFF, but the links it lands on are
    struck (FINAL_STRUCK) and swept until they are within FINAL_STRETCH. Before, it landed
    with its right shin 46 mm short (10 %: the knee driven down onto the planted foot), and
    its BVH's foot 63 mm off the node; now the worst link is 14 mm off, in the tick its
    trunk folds over."""
    world = twig.World(seed=0)
    doll = world.add_humanoid("doll", position=(0.0, 1.0, 0.0), control=False)
    lo, hi = world.links["min"], world.links["max"]
    mine = np.isin(world.links["nodes"][:, 0], np.arange(doll.nodes.start, doll.nodes.stop))
    worst = 0.0
    for _ in range(240):
        world.step()
        ends = world.node_pos[world.links["nodes"][mine]]
        length = np.linalg.norm(ends[:, 0] - ends[:, 1], axis=1)
        worst = max(worst, float(np.maximum(length - hi[mine], lo[mine] - length).max()))
    assert FINAL_STRUCK > 0 and FINAL_STRETCH < 0.02
    assert worst < 0.02


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


def _relax_final(world: twig.World) -> np.ndarray:
    """The world's node positions after :func:`relax_final` alone on its present state (no
    contacts, weights the inverse masses); the world is left as it was."""
    rec = array_records(world)
    nodes, links = Nodes(*rec.nodes), Constraints(*rec.constraints)
    col, pairs = Collision(*rec.collision), Pairs(*rec.pairs)
    pos = np.array(nodes.pos)
    n = len(pos)
    lo, hi, stiffness, n_exact = links.link_min, links.link_max, links.link_stiffness, \
        links.n_exact
    relax_final(pos, np.array(nodes.prev), np.array(nodes.inv_mass), nodes.radius,
                np.array(nodes.flags), np.array(nodes.lock_pos), links.link_nodes, lo, hi,
                stiffness, rigid_prefix(lo, hi, stiffness, n_exact), n_exact,
                links.link_visible, links.angle_nodes, links.angle_cos, links.plane_normal,
                links.plane_offset, links.plane_friction, np.zeros(n), np.zeros((n, 3)),
                np.zeros(n), pairs.pair_i, pairs.pair_f, 0, col.node_row,
                len(col.body_start), world.dt)
    return pos


def _standing(stiff: bool = True) -> tuple[twig.World, twig.physics.Body]:
    world = twig.World(ground=False)
    figure = world.add_humanoid("figure", control=False)
    if stiff:
        world.stiffen(figure.nodes)
    return world, figure


def test_a_figure_whose_visible_links_hold_gets_no_sweeps():
    """Its pelvis brace 5 % long (invisible) and every visible link within FINAL_NEED: the
    final sweeps leave it alone. With its left shin 5 % long, they bring the shin back."""
    world, figure = _standing()
    pelvis, l_hip, l_knee, l_foot = (figure.nodes.start + k for k in (3, 10, 11, 12))
    offset = world.node_pos[pelvis] - world.node_pos[l_hip]
    world.node_pos[pelvis] += 0.05 * offset  # the brace pelvis-l_hip, 5 % long
    assert np.array_equal(_relax_final(world), world.node_pos)

    world, figure = _standing()
    shin = float(np.linalg.norm(world.node_pos[l_foot] - world.node_pos[l_knee]))
    world.node_pos[l_foot] += 0.05 * (world.node_pos[l_foot] - world.node_pos[l_knee])
    after = _relax_final(world)
    assert _worst_error(world, figure) > FINAL_NEED
    assert abs(np.linalg.norm(after[l_foot] - after[l_knee]) / shin - 1.0) < FINAL_NEED


def test_a_figure_that_is_not_stiff_gets_no_sweeps_for_a_slow_stretch():
    world, figure = _standing(stiff=False)
    l_knee, l_foot = figure.nodes.start + 11, figure.nodes.start + 12
    world.node_pos[l_foot] += 0.05 * (world.node_pos[l_foot] - world.node_pos[l_knee])
    world.node_prev[:] = world.node_pos  # nothing moved this tick: nothing is struck
    assert np.array_equal(_relax_final(world), world.node_pos)


def test_a_carrier_always_gets_the_sweeps():
    """A hand holding a prop by a grab link (zero length, invisible) counts as a link off its
    length whenever the two are apart: the carrier's links get the sweeps, and the prop
    comes to the hand."""
    world, figure = _standing()
    hand = figure.nodes.start + 6
    ball = world.add_ball("ball", world.node_pos[hand] + (0.0, 0.0, 0.02), radius=0.05)
    world.add_link(hand, ball.nodes.start, grab=True)
    gap = np.linalg.norm(world.node_pos[hand] - world.node_pos[ball.nodes.start])
    after = _relax_final(world)
    assert np.linalg.norm(after[hand] - after[ball.nodes.start]) < 0.01 * gap
