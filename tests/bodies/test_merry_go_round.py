"""The merry-go-round: the paper's counts, rigid but for its spin, and it spins when pushed."""

import numpy as np
import pytest

import twig
from twig.physics import flags


@pytest.fixture
def world_and_mgr():
    world = twig.World(seed=0)
    return world, world.add_merry_go_round("mgr", position=(1.0, 0.0, -2.0))


def test_counts_are_the_papers_18_nodes_41_links_25_visible_bars(world_and_mgr):
    world, mgr = world_and_mgr
    mine = world.links["body"] == mgr.id
    assert mgr.nodes.stop - mgr.nodes.start == 18
    assert mine.sum() == 41
    assert world.link_visible[mine].sum() == 25
    # Every visible bar has a capsule; the bracing has none.
    capsules = {tuple(sorted(v[:2])) for v in world.volumes["nodes"][world.volumes["body"]
                                                                     == mgr.id].tolist()}
    bars = {tuple(sorted(link)) for link in world.link_nodes[mine & world.link_visible].tolist()}
    assert capsules == bars


def _constraint_jacobian(world, mgr):
    """Rows: gradients of every link length and angle-limit cosine of the merry-go-round with
    respect to its free nodes' coordinates, at the current positions."""
    p = world.node_pos
    free = np.flatnonzero(world.node_inv_mass[mgr.nodes] > 0) + mgr.nodes.start
    col = {int(node): k for k, node in enumerate(free)}
    rows = []
    for a, b in world.link_nodes[world.links["body"] == mgr.id]:
        r = np.zeros((len(free), 3))
        d = (p[b] - p[a]) / np.linalg.norm(p[b] - p[a])
        for node, sign in ((a, -1.0), (b, 1.0)):
            if node in col:
                r[col[node]] += sign * d
        rows.append(r.ravel())
    for a, b, c in world.angles["nodes"][world.angles["body"] == mgr.id]:
        u, v = p[a] - p[b], p[c] - p[b]
        lu, lv = np.linalg.norm(u), np.linalg.norm(v)
        cos = u @ v / (lu * lv)
        grad = {a: v / (lu * lv) - cos * u / lu**2, c: u / (lu * lv) - cos * v / lv**2}
        grad[b] = -grad[a] - grad[c]
        r = np.zeros((len(free), 3))
        for node, g in grad.items():
            if int(node) in col:
                r[col[int(node)]] += g
        rows.append(r.ravel())
    return np.array(rows), p[free]


def test_constraints_leave_exactly_the_spin_about_the_axle(world_and_mgr):
    world, mgr = world_and_mgr
    jac, free_pos = _constraint_jacobian(world, mgr)
    assert jac.shape[1] == 48  # 16 free nodes
    singular = np.linalg.svd(jac, compute_uv=False)
    assert (singular > 1e-6).sum() == 47  # one motion left...
    motion = np.linalg.svd(jac)[2][-1].reshape(-1, 3)
    axle = mgr.node_position("foot")
    spin = np.cross((0.0, 1.0, 0.0), free_pos - axle)
    assert abs(motion.ravel() @ spin.ravel()) / np.linalg.norm(spin) > 1 - 1e-9  # ...the spin


def _angle(world, node, centre):
    d = world.node_pos[node] - centre
    return np.arctan2(d[2], d[0])


def test_a_push_of_a_few_newtons_spins_it_and_it_coasts_to_a_stop(world_and_mgr):
    world, mgr = world_and_mgr
    foot, hub = mgr.node("foot"), mgr.node("hub")
    axle = world.node_pos[[foot, hub]].copy()
    assert (world.node_flags[[foot, hub]] & flags.LOCKED).all()
    handle, rim = mgr.node("handle0"), mgr.node("rim0")
    world.run(seconds=1.0)  # settle
    turned, last = 0.0, _angle(world, rim, axle[0])
    speeds, worst = [], 0.0
    for tick in range(round(12.0 / world.dt)):
        if tick < round(1.0 / world.dt):  # 5 N tangential, for one second
            tangent = np.cross(world.node_pos[handle] - axle[0], (0.0, 1.0, 0.0))
            world.add_force(handle, 5.0 * tangent / np.linalg.norm(tangent))
        world.step()
        now = _angle(world, rim, axle[0])
        step = (now - last + np.pi) % (2 * np.pi) - np.pi
        turned, last = turned + step, now
        speeds.append(step / world.dt)
        worst = max(worst, mgr.link_errors().max())
        np.testing.assert_array_equal(world.node_pos[[foot, hub]], axle)  # axle in place
    assert speeds[59] > 0.1  # rad/s at the end of the push: it spins
    assert turned > 0.3  # and goes on turning after the push (rad)
    assert worst < 0.01  # bars within 1 % all along
    assert speeds[-1] == 0.0 and world.is_asleep(mgr)  # coasted to a stop
    assert np.all(np.diff(speeds[60:]) <= 1e-9)  # slowing down all the way (damping)


def test_it_stays_level_and_off_the_ground_at_rest(world_and_mgr):
    world, mgr = world_and_mgr
    rims = [mgr.node(f"rim{k}") for k in range(8)]
    start = world.node_pos[rims, 1].copy()
    world.run(seconds=2.0)
    assert np.abs(world.node_pos[rims, 1] - start).max() < 2e-3  # no sag beyond 2 mm
    assert mgr.link_errors().max() < 0.002
