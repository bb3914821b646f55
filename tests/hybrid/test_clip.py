"""Clips: recorded from twig, through BVH and back, played kinematically; the library."""

import numpy as np
import pytest

import twig
from twig.action import Action
from twig.bodies.humanoid import NODE_NAMES
from twig.export import write_bvh
from twig.hybrid import ClipRecorder, library_clip, library_names, load_clip, play_clip
from twig.hybrid.controllers import ClipPlayer
from twig.hybrid.library import LOOPS, library_folder
from twig.hybrid.similarity import similarity
from twig.hybrid.supervisor import supervisor


def _walk_world():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    kid.walk((0.3, 0.0, 1.2))
    return world, kid


def test_a_recorded_walk_through_bvh_plays_back_on_the_original_paths(tmp_path):
    world, kid = _walk_world()
    recording = world.record()
    world.run(seconds=3)
    path = write_bvh(recording, tmp_path / "walk.bvh", stretch=True)[0]
    original = recording.arrays()["pos"][:, kid.nodes]

    clip = load_clip(path)
    assert clip.fps == pytest.approx(60.0) and clip.frames == len(original)
    replay = twig.World(seed=0)
    actor = replay.add_humanoid("kid")
    action = play_clip(actor, str(path))
    played = [replay.node_pos[actor.nodes].copy()]
    for _ in range(len(original) - 1):
        replay.step()
        played.append(replay.node_pos[actor.nodes].copy())
    err = np.linalg.norm(np.array(played) - original, axis=-1)
    # Issue #10: every node, the pelvis too, within 1 cm of its original path in every
    # frame. The file puts all 16 nodes (Spine sits on the pelvis) where the simulation had
    # them, and a file of twig's own skeleton is played at its joint positions (measured:
    # the clip within 3e-8 m of the recording); what is left is the kinematic playback's,
    # as without the file (the test below). Measured: 6.2 mm at most (the head, 10 frames
    # in), 0.6 mm on average for every node; the pelvis 6.1 mm at most, 0.6 mm on average.
    np.testing.assert_allclose(clip.nodes, original, atol=1e-6)
    assert err.max() < 0.01, (float(err.max()), NODE_NAMES[int(err.max(0).argmax())])
    assert err.mean(axis=0).max() < 0.002
    replay.step()
    assert action.succeeded


def test_a_recorded_clip_played_kinematically_keeps_to_the_original_paths():
    """Issue #10's 1 cm, without the BVH file between: a clip of the walk's own node paths
    (every tick) played on a fresh character keeps every node within 1 cm of the original,
    the pelvis too (measured: 6.2 mm at most, 0.6 mm on average)."""
    world, kid = _walk_world()
    recorder = ClipRecorder(kid, every=1)
    world.run(seconds=3)
    clip = recorder.clip("walk")
    replay = twig.World(seed=0)
    actor = replay.add_humanoid("kid")
    action = supervisor(actor).play(ClipPlayer(clip, from_start=True),
                                    Action("play walk", actor.name, replay.events))
    played = [replay.node_pos[actor.nodes].copy()]
    for _ in range(clip.frames - 1):
        replay.step()
        played.append(replay.node_pos[actor.nodes].copy())
    err = np.linalg.norm(np.array(played) - clip.nodes, axis=-1)
    assert err.max() < 0.01 and err.mean() < 0.002
    replay.step()
    assert action.succeeded


def test_recorder_makes_a_clip_at_30_fps_of_the_characters_motion():
    world, kid = _walk_world()
    world.run(seconds=1)
    recorder = ClipRecorder(kid)
    world.run(seconds=2)
    clip = recorder.clip("mine")
    assert clip.fps == pytest.approx(30.0) and clip.frames == 61
    np.testing.assert_array_equal(clip.nodes[-1], world.node_pos[kid.nodes])
    speed = np.linalg.norm(np.diff(clip.nodes[:, 3, [0, 2]], axis=0), axis=1) * 30
    assert speed.mean() == pytest.approx(np.hypot(0.3, 1.2), rel=0.15)


def test_the_library_has_every_clip_small_and_the_loops_close():
    assert library_names() == list(LOOPS)
    for name in ("walk", "run", "idle", "wave", "kick", "sit", "fall-recovery"):
        clip = library_clip(name)
        assert (library_folder() / f"{name}.bvh").stat().st_size < 64 * 1024
        assert clip.fps == pytest.approx(30.0)
        if clip.loop:
            pos, vel = clip.features
            assert similarity(pos[0], vel[0], pos[-1], vel[-1]) < 0.02
    hips = library_clip("fall-recovery").nodes[:, [10, 13], 1].mean(axis=1)
    assert hips[0] < 0.3 and hips[-1] > 0.8   # from the ground to standing
    walk = library_clip("walk")
    assert np.linalg.norm(walk.pose(3 * walk.duration)[3] - walk.pose(0)[3]) > 3.0


def test_a_looping_clip_goes_on_cycle_after_cycle_without_a_jump():
    walk = library_clip("walk")
    t = np.arange(0.0, 3 * walk.duration, 1 / 60)
    poses = np.array([walk.pose(x) for x in t])
    step = np.linalg.norm(np.diff(poses, axis=0), axis=-1).max(axis=1)
    assert step.max() < 2.5 * np.median(step) + 0.01


def test_the_fall_recovery_clip_has_no_leap():
    """Made from a seated figure going limp, played backwards: the knee hinge's plane was
    ill defined for the seated legs, and the feet leapt 0.5 m in one frame of the clip."""
    nodes = np.array(library_clip("fall-recovery").nodes)
    assert np.linalg.norm(np.diff(nodes, axis=0), axis=2).max() < 0.1  # m per 30 fps frame
    assert nodes[:, [12, 15], 1].max() < 0.3  # the feet stay near the ground
