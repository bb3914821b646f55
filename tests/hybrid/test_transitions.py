"""The four kinds of transition (DANCE 2.5-2.8): blends that take 0.5 s without a pop, and a
hand-over to physics that keeps every node's velocity."""

import numpy as np
import pytest

import twig
from twig.bodies.humanoid import NODE_NAMES
from twig.hybrid import library_clip, play_clip, set_passive, supervisor
from twig.hybrid.blend import BLEND_SECONDS, WINDOW_FPS, WINDOW_FRAMES
from twig.hybrid.controllers import Tracking
from twig.physics import flags

POP = 0.01
"""A blend may move a node at most this much (m) in one tick (1/60 s) beyond the fastest
the clip itself moves one (a walk's swinging foot: about 7 cm a tick)."""


def _own_step(name: str) -> float:
    """The most any node of a library clip moves in one tick, metres."""
    clip = library_clip(name)
    t = np.arange(0.0, clip.duration, 1 / 60)
    poses = np.array([clip.pose(x) for x in t])
    return float(np.linalg.norm(np.diff(poses, axis=0), axis=-1).max())


def _run(world, body, ticks):
    out = [world.node_pos[body.nodes].copy()]
    for _ in range(ticks):
        world.step()
        out.append(world.node_pos[body.nodes].copy())
    return np.array(out)


def _events(world):
    seen = []
    world.events.subscribe(lambda e: seen.append((world.tick, e)), types=["controller"])
    return seen


def test_the_blend_constants_are_the_papers():
    assert BLEND_SECONDS == 0.5
    assert (WINDOW_FRAMES, WINDOW_FPS) == (15, 30.0)


def test_dynamic_to_kinematic_blends_over_half_a_second_without_a_pop():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    world.run(seconds=0.5)
    before = world.node_vel[kid.nodes].copy()
    play_clip(kid, "walk", loops=0)
    player = supervisor(kid).active
    path = _run(world, kid, 40)
    steps = np.linalg.norm(np.diff(path, axis=0), axis=-1)
    assert steps.max() < _own_step("walk") + POP
    # The first blended tick carries on with the velocity the character had.
    assert np.abs((path[1] - path[0]) * 60 - before).max() < 0.5
    # The blend lasts 0.5 s (30 ticks), then the nodes are exactly on the clip.
    assert player.offset is None
    fresh = twig.World(seed=0)
    other = fresh.add_humanoid("kid")
    fresh.run(seconds=0.5)
    play_clip(other, "walk", loops=0)
    p = supervisor(other).active
    fresh.step(29)
    assert p.offset is not None and np.abs(fresh.node_pos[other.nodes] - p.target()).max() > 1e-3
    fresh.step(1)
    assert p.offset is None
    np.testing.assert_allclose(fresh.node_pos[other.nodes], p.target(), atol=1e-9)


@pytest.mark.parametrize("seconds", [0.5, 0.8])
def test_a_blend_starts_with_the_pelvis_where_it_swayed(seconds):
    """The braced torso is flat, so a standing figure's pelvis sways 1-2 cm forward and back
    at its links' lengths (1.5 cm at 0.8 s here); the blend's first tick keeps every node's
    velocity, the pelvis included (re-braced at once, it jumped at 0.9 m/s)."""
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    world.run(seconds=seconds)
    before = world.node_vel[kid.nodes].copy()
    play_clip(kid, "walk", loops=0)
    path = _run(world, kid, 1)
    assert np.abs((path[1] - path[0]) * 60 - before).max() < 0.5


def test_kinematic_to_kinematic_blends_over_15_frames_at_30_fps():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    play_clip(kid, "walk", loops=0)
    world.run(seconds=1.5)
    seen = _events(world)
    play_clip(kid, "run", loops=0)
    run = supervisor(kid).active
    assert seen[-1][1]["transition"] == "kinematic->kinematic"
    ticks = round(WINDOW_FRAMES / WINDOW_FPS / world.dt)
    assert ticks == 30  # 0.5 s at twig's 60 Hz
    path = _run(world, kid, ticks - 1)
    # Still blending one tick before 0.5 s: the nodes are between the clips (measured
    # 3.6 mm off the run's pose; 7.5 cm five ticks earlier).
    assert run.fade is not None
    assert np.abs(world.node_pos[kid.nodes] - run.target()).max() > 1e-3
    path = np.concatenate([path, _run(world, kid, 1)[1:]])
    # At 0.5 s the blend is over and every node is on the new clip.
    assert run.fade is None
    np.testing.assert_allclose(world.node_pos[kid.nodes], run.target(), rtol=0, atol=1e-9)
    path = np.concatenate([path, _run(world, kid, 15)[1:]])
    # No pop: no node moves in a tick more than the faster clip's fastest node (7 cm) plus
    # POP, and no kink beyond what the clips have themselves.
    steps = np.linalg.norm(np.diff(path, axis=0), axis=-1)
    assert steps.max() < max(_own_step("walk"), _own_step("run")) + POP
    jerk = np.linalg.norm(np.diff(path, 2, axis=0), axis=-1).max(axis=1)
    own = np.linalg.norm(np.diff(np.array([run.target(t) for t in run.t - np.arange(
        45, -1, -1) / 60]), 2, axis=0), axis=-1).max()
    assert jerk.max() < own + 0.02


def _touching(world, body) -> set[int]:
    """Nodes of ``body`` (0-15) in a contact of the last tick: a volume of it touching
    another body, or resting on a ground plane."""
    c, vols = world.contacts, world.volumes
    out = {int(i) for i in np.flatnonzero(world.node_flags[body.nodes] & flags.GROUNDED)}
    for row in c.involving(body.id):
        mine = c.volume_a[row] if c.body_a[row] == body.id else c.volume_b[row]
        ends = vols["nodes"][np.flatnonzero(vols["id"] == mine)[0]]
        out |= {int(n) - body.nodes.start for n in ends
                if body.nodes.start <= n < body.nodes.stop}
    return out


def test_kinematic_to_dynamic_on_contact_keeps_every_nodes_velocity():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    world.add_ball("pebble", position=(0.08, 0.05, 1.2), radius=0.05, mass=0.1)
    rest = world.link_min.copy()
    seen = _events(world)
    play_clip(kid, "walk", loops=0)
    sup = supervisor(kid)
    handed = []  # every node's Verlet velocity right after the hand-over, before physics

    def after_the_supervisor():
        if isinstance(sup.active, Tracking) and not handed:
            handed.append(sup.velocities().copy())

    world.stages.add("hybrid", after_the_supervisor)  # after the supervisor
    path, touching = [world.node_pos[kid.nodes].copy()], []
    for _ in range(120):
        world.step()
        path.append(world.node_pos[kid.nodes].copy())
        touching.append(_touching(world, kid))
    hand_over = [t for t, e in seen if e["transition"] == "kinematic->dynamic"]
    assert hand_over and seen[1][1]["reason"] == "contact with pebble"
    k = hand_over[0]  # path[k] is where the switch tick started, path[k + 1] where it ended
    v = np.diff(np.array(path), axis=0) * 60
    # The hand-over itself: each node's velocity is the clip's over the last tick, exactly.
    np.testing.assert_allclose(handed[0], v[k - 1], rtol=0, atol=1e-9)
    # Across the first tick of physics: the struck shin (the pebble met it in the tick that
    # triggered the switch) and the stance foot on the ground may be pushed by their
    # contacts; every other node goes on with its velocity. Measured: 3.8 cm/s at most
    # (r_hip, through the struck knee's hinge), 2 cm/s or less elsewhere; the touching nodes
    # 7 cm/s (r_knee), 5 (r_foot), 3.3 (l_foot on the ground).
    struck = touching[k - 1] | touching[k]
    names = {NODE_NAMES[n] for n in struck}
    assert {"r_knee", "r_foot"} <= names and names <= {"r_knee", "r_foot", "l_foot"}
    change = np.linalg.norm(v[k] - v[k - 1], axis=1)
    assert np.delete(change, sorted(struck)).max() < 0.05
    assert change[sorted(struck)].max() < 0.15
    mass = 1 / world.node_inv_mass[kid.nodes]
    momentum = [(mass[:, None] * v[i]).sum(axis=0) / mass.sum() for i in (k - 1, k)]
    # Momentum carries over (measured: 4 mm/s; the tracking controller holds the weight
    # as the stance foot did, so not even a tick of gravity is lost).
    assert np.linalg.norm(momentum[1] - momentum[0]) < 0.01
    # The clip's breath (shoulder braces 6 mm off their rest) settles over 0.5 s, and the
    # links are the figure's own again.
    np.testing.assert_array_equal(world.link_min, rest)


def test_a_passive_object_does_not_switch_the_clip_to_physics():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    world.add_ball("pebble", position=(0.08, 0.05, 1.2), radius=0.05, mass=0.1)
    set_passive(kid, world.body("pebble"))
    seen = _events(world)
    play_clip(kid, "walk", loops=0)
    world.run(seconds=2)
    assert "pebble" in world.touched(kid, within=2.0)
    assert [e["controller"] for _, e in seen] == ["clip walk"]


def test_a_ball_at_the_hips_is_absorbed_and_the_walk_blends_back():
    world = twig.load_scene("hybrid")
    seen = _events(world)
    world.run(seconds=world.scene.seconds)
    names = [(e["controller"], e["transition"]) for _, e in seen]
    k = names.index(("tracking walk", "kinematic->dynamic"))
    assert seen[k][1]["reason"] == "contact with ball"
    assert ("clip walk", "dynamic->kinematic") in names[k:]
    assert world.body("walker").upright
    assert world.script.status == "finished"


def test_dynamic_to_dynamic_by_pre_and_post_conditions():
    """Tracking fails when the figure tips over, which is the fall reflex's pre-condition;
    the reflex succeeds lying still, which is the recovery's."""
    world = twig.load_scene("trip")
    seen = _events(world)
    world.run(seconds=6)
    chain = [(e["controller"], e["transition"], e["reason"]) for _, e in seen]
    assert ("reflex fall", "dynamic->dynamic", "tracking walk failed") in chain
    assert ("clip fall-recovery", "dynamic->kinematic", "reflex fall succeeded") in chain


@pytest.mark.parametrize("clip", ["wave", "kick"])
def test_a_clip_that_ends_hands_back_to_motor_control(clip):
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    action = play_clip(kid, clip)
    world.run(seconds=library_clip(clip).duration + 0.1)
    assert action.succeeded and supervisor(kid).active.name == "motor"
    assert kid.mode != "limp"


def test_a_clip_that_ends_seated_leaves_the_character_sitting_under_motor_control():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    action = play_clip(kid, "sit")
    world.run(seconds=library_clip("sit").duration + 2.0)
    assert action.succeeded and supervisor(kid).active.name == "motor"
    assert kid.mode == "sitting" and kid.hips[1] < 0.3
    assert kid.stand_up() is not None
    world.run(seconds=3)
    assert kid.upright
