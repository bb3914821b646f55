"""BVH files read back by a third-party parser (pybvh) reproduce the simulated motion."""

from __future__ import annotations

import numpy as np
import pybvh
import pytest
from expected import BVH_JOINTS, chain_stretch, simulated_joints

import twig
from twig.export import ExportError, write_bvh


def _read(path) -> pybvh.Bvh:
    return pybvh.read_bvh_file(path, world_up="+y")


def test_round_trip_through_pybvh_matches_the_nodes(motion, tmp_path):
    """Joint positions that pybvh computes from the file land on the simulated nodes within
    1 mm plus however far the simulation stretched the links on the way from the hips (the
    file's bones are rigid: its offsets are the rest lengths)."""
    (path,) = write_bvh(motion.recording, tmp_path / "motion.bvh", character=motion.character)
    bvh = _read(path)
    assert bvh.joint_names == BVH_JOINTS
    assert bvh.frame_count == len(motion.recording) == 601
    assert bvh.frame_time == pytest.approx(1 / 60)
    got = bvh.joint_positions()[:, [bvh.joint_index[j] for j in BVH_JOINTS]] / 100.0
    want = simulated_joints(motion.recording, motion.character)
    parent = [BVH_JOINTS.index(n.parent.name) if n.parent else -1
              for n in bvh.nodes if not n.is_end_site()]
    bone = np.array([np.linalg.norm(n.offset) for n in bvh.nodes if not n.is_end_site()]) / 100
    stretch = chain_stretch(want, parent, bone)
    error = np.linalg.norm(got - want, axis=-1)
    assert (error <= 1e-3 + stretch).all(), float((error - stretch).max())
    assert error[:, 0].max() < 1e-5  # the root channel is the pelvis, to the file's precision


def test_file_layout_is_what_animation_tools_expect(tmp_path):
    world = twig.World()
    world.add_humanoid("kid", preset="child")
    recording = world.record()
    world.step(3)
    (path,) = write_bvh(recording, tmp_path / "kid.bvh")
    text = path.read_text()
    assert text.startswith("HIERARCHY\nROOT Hips\n")
    assert "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation" in text
    assert "MOTION\nFrames: 4\nFrame Time: 0.01666667\n" in text
    bvh = _read(path)
    assert all(order == "ZXY" for order in bvh.euler_orders)
    rest = bvh.rest_pose_positions()
    head, foot = rest[bvh.node_index["Head"]], rest[bvh.node_index["LeftFoot"]]
    assert head[1] - foot[1] == pytest.approx(100 * 1.1 * (0.935 - 0.03), abs=0.01)  # cm, y up
    left = rest[bvh.node_index["LeftUpLeg"]]
    assert left[0] > 0  # facing +z, the figure's left is +x
    toe = rest[bvh.node_index["LeftFoot"] + 1]  # its end site
    assert toe[2] > foot[2]  # toes forward


def test_several_humanoids_go_to_one_file_each_or_the_chosen_one(tmp_path):
    world = twig.load_scene("demo")
    recording = world.record()
    world.step(10)
    paths = write_bvh(recording, tmp_path / "demo.bvh")
    assert sorted(p.name for p in paths) == ["demo_adult.bvh", "demo_child.bvh"]
    (only,) = write_bvh(recording, tmp_path / "child.bvh", character="child")
    assert only.name == "child.bvh"
    assert only.read_text() == (tmp_path / "demo_child.bvh").read_text()


def test_resampling_to_30_fps_keeps_every_other_frame(tmp_path):
    world = twig.World()
    world.add_humanoid("doll", position=(0.0, 0.5, 0.0))
    recording = world.record()
    world.run(2)
    full = _read(write_bvh(recording, tmp_path / "60.bvh")[0])
    half = _read(write_bvh(recording, tmp_path / "30.bvh", fps=30)[0])
    assert half.frame_count == 61 and half.frame_time == pytest.approx(1 / 30)
    np.testing.assert_allclose(half.joint_positions(), full.joint_positions()[::2], atol=1e-3)


def test_no_humanoid_is_a_clear_error(tmp_path):
    world = twig.load_scene("tetra")
    recording = world.record()
    world.step(2)
    with pytest.raises(ExportError, match=r"no humanoid.*tetra \(tetrahedron\)"):
        write_bvh(recording, tmp_path / "x.bvh")
    assert not list(tmp_path.iterdir())


def test_unknown_character_names_the_humanoids(tmp_path):
    world = twig.load_scene("demo")
    recording = world.record()
    with pytest.raises(twig.UnknownNameError, match=r"'kid'.*adult, child"):
        write_bvh(recording, tmp_path / "x.bvh", character="kid")


def test_unwritable_path_is_a_clear_error_and_leaves_nothing(tmp_path):
    """The second of two files cannot be written (a folder has its name): the first, already
    written, is removed again."""
    world = twig.load_scene("demo")
    recording = world.record()
    (tmp_path / "demo_child.bvh").mkdir()
    with pytest.raises(ExportError, match=r"cannot write .*demo_child\.bvh"):
        write_bvh(recording, tmp_path / "demo.bvh")
    assert [p.name for p in tmp_path.iterdir()] == ["demo_child.bvh"]


def test_missing_folder_and_wrong_suffix_are_clear_errors(tmp_path):
    world = twig.load_scene("demo")
    recording = world.record()
    with pytest.raises(ExportError, match=r"cannot write .*nowhere"):
        write_bvh(recording, tmp_path / "nowhere" / "demo.bvh")
    with pytest.raises(ExportError, match=r"ending in \.bvh"):
        write_bvh(recording, tmp_path / "demo.txt")
    with pytest.raises(ExportError, match="fps"):
        write_bvh(recording, tmp_path / "demo.bvh", fps=0)
