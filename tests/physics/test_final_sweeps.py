"""The links of STIFF nodes have the last word in a tick: more sweeps after the contacts and
friction (Jakobsen 2001, section 8: a different number of iterations for different
constraints)."""

import numpy as np

import twig
from twig.physics import flags
from twig.physics.constraints import FINAL_STRETCH, FINAL_STRUCK, FINAL_SWEEPS


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
