"""A child carrying its doll runs upright (issue #33): the carried hand keeps its pose in a
level frame of the shoulders and follows them, so it neither sinks as the trunk pitches
nor falls behind a running carrier and holds the shoulders back."""

import numpy as np

import twig


def _lean(kid) -> float:
    """Trunk (pelvis to neck) angle from vertical, degrees."""
    trunk = kid.node_position("neck") - kid.node_position("pelvis")
    return float(np.degrees(np.arccos(trunk[1] / np.linalg.norm(trunk))))


def test_a_child_runs_upright_with_its_doll():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid", position=(0.9, 0.0, 0.5), preset="child")
    world.add_doll("doll", position=(1.15, 0.0, 0.75), lying=True)
    held = kid.hold("doll", hand="left")
    world.run(2.0)
    assert held.succeeded
    leans, doll_low = [], []
    for heading in ((0.0, 0.0, 1.2), (1.2, 0.0, 0.0), (-0.8, 0.0, -0.9)):
        kid.walk(heading)
        for _ in range(60):  # 4 s at 15 Hz
            world.step(4)
            leans.append(_lean(kid))
            doll_low.append(float(world.node_pos[world.body("doll").nodes, 1].min()))
    # Before the fix: the trunk 45-89 degrees from vertical in about a third of these frames.
    assert max(leans) < 35.0
    # The doll is carried, not dragged along the ground.
    assert np.mean(np.array(doll_low) > 0.03) > 0.9


def test_a_carried_doll_does_not_whirl_round_the_hand():
    """Hung from a point, the doll whirled round the running child's hand (its far hand at
    8-11 m/s in the playground); the hand steadies it, and its limbs still flop."""
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid", position=(0.9, 0.0, 0.5), preset="child")
    doll = world.add_doll("doll", position=(1.15, 0.0, 0.75), lying=True)
    held = kid.hold("doll", hand="left")
    world.run(2.0)
    assert held.succeeded
    recording = world.record()
    # Runs and stops dead, turning sharply each time (what throws a hung doll about).
    for heading in ((0.0, 0.0, 2.5), (2.5, 0.0, 0.0), (0.0, 0.0, -2.5), (-2.5, 0.0, 0.0)):
        kid.walk(heading)
        world.run(1.5)
        kid.stop()
        world.run(0.5)
    pos = recording.arrays()["pos"][:, doll.nodes]
    speed = np.linalg.norm(np.diff(pos, axis=0), axis=2) / recording.dt
    assert speed.max() < 6.0, speed.max()
    # Still a rag doll: its forearms swing against its upper arms.
    elbow = [list(recording.arrays()["node_name"]).index(f"doll/{n}") for n in
             ("l_shoulder", "l_elbow", "l_hand")]
    a = recording.arrays()["pos"][:, elbow]
    bend = np.einsum("ij,ij->i", a[:, 1] - a[:, 0], a[:, 2] - a[:, 1])
    assert np.ptp(bend) > 0.002
    kid.release()
    assert (world.nodes["damp_ref"][doll.nodes] == -1).all()
