"""The humanoid builder: the paper's counts, masses, named links and joint limits (#4)."""

import numpy as np
import pytest

import twig
from twig.bodies.frames import pelvis_frame
from twig.bodies.humanoid import LINKS, NODE_NAMES, SEGMENTS, node_masses
from twig.errors import PhysicsError


def _knee_errors(world, body):
    """Per leg: (sideways distance of the knee from the leg plane, forward bend), metres."""
    out = []
    f = pelvis_frame(body).forward
    for s in "lr":
        hip, knee, foot = (body.node_position(f"{s}_{n}") for n in ("hip", "knee", "foot"))
        line = foot - hip
        n = np.cross(line, f)
        n /= np.linalg.norm(n)
        b = f - line * (f @ line) / (line @ line)
        out.append((abs((knee - foot) @ n), (knee - hip) @ (b / np.linalg.norm(b))))
    return out


def test_counts_names_and_masses():
    world = twig.World()
    kid = world.add_humanoid("kid", preset="child")
    assert kid.node_names == NODE_NAMES and len(NODE_NAMES) == 16
    visible = world.links["visible"] & (world.links["body"] == kid.id)
    assert visible.sum() == 13 == len(LINKS)
    links = world.body_record(kid.id).meta["links"]
    rows = world.link_rows([links[name] for name in LINKS])
    pairs = {tuple(sorted(kid.node_names[i - kid.nodes.start] for i in world.link_nodes[r]))
             for r in rows}
    assert pairs == {tuple(sorted(p)) for p in LINKS.values()}
    assert sum(f for f, _ in SEGMENTS.values()) == pytest.approx(1.0)
    mass = 1.0 / world.node_inv_mass[kid.nodes]
    assert mass.sum() == pytest.approx(70.0 * (1.1 / 1.75) ** 3)
    np.testing.assert_allclose(mass, node_masses(mass.sum()))
    # The trunk (head, neck, chest, pelvis, hips, shoulders) carries over half the mass.
    trunk = [NODE_NAMES.index(n) for n in ("head", "neck", "chest", "pelvis", "l_hip", "r_hip",
                                           "l_shoulder", "r_shoulder")]
    assert 0.5 < mass[trunk].sum() / mass.sum() < 0.75


def test_proportions_change_the_build():
    world = twig.World()
    base = world.add_humanoid("base")
    leggy = world.add_humanoid("leggy", (2, 0, 0), proportions={"legs": 1.1, "arms": 0.9})

    def length(body, a, b):
        return np.linalg.norm(body.node_position(a) - body.node_position(b))

    assert length(leggy, "l_hip", "l_foot") == pytest.approx(1.1 * length(base, "l_hip",
                                                                          "l_foot"))
    assert length(leggy, "l_shoulder", "l_hand") == pytest.approx(
        0.9 * length(base, "l_shoulder", "l_hand"))
    assert leggy.positions[:, 1].min() == pytest.approx(base.positions[:, 1].min())
    with pytest.raises(PhysicsError, match="unknown key 'tail'"):
        world.add_humanoid("odd", (4, 0, 0), proportions={"tail": 2.0})
    nodes, links = world.n_nodes, len(world.link_min)
    with pytest.raises(PhysicsError, match="height"):
        world.add_humanoid("neg", (6, 0, 0), height=-1.0)
    assert [b.name for b in world.bodies] == ["base", "leggy"]
    assert (world.n_nodes, len(world.link_min)) == (nodes, links)  # nothing half-built


@pytest.mark.parametrize("preset", ["adult", "child"])
def test_a_passive_figure_dropped_from_a_metre_comes_to_rest_as_a_rag_doll(preset):
    world = twig.World(seed=1)
    body = world.add_humanoid("doll", (0, 1.0, 0), preset=preset, control=False)
    world.set_velocity(body.nodes, (0.3, 0.0, 0.2))   # tumble a little
    for _ in range(4 * 60):
        world.step()
        assert world.node_pos[body.nodes, 1].min() > 0.0
    assert np.linalg.norm(body.velocity) < 0.05             # at rest
    # Nothing stretched over 3 %: a child folded onto itself (shin across chest) presses
    # its own limbs together, and its links give up to ~4 mm (2.8 %).
    assert body.link_errors().max() < 0.03
    for sideways, bend in _knee_errors(world, body):
        assert sideways < 0.01                              # no knee bent sideways
        assert bend > -0.01                                 # or backwards
