"""Retargeting: default joint names (twig, CMU, Mixamo), custom maps, missing joints, scaling,
twig's own files at their joint positions."""

import re

import numpy as np
import pytest

import twig
from twig.bodies.humanoid import NODE_NAMES
from twig.export import write_bvh
from twig.hybrid import (
    RetargetError,
    library_clip,
    load_bvh,
    load_clip,
    parse_bvh,
    rest_positions,
    retarget,
    retargeting,
)
from twig.hybrid.library import library_folder
from twig.hybrid.retarget import BONES, rest_nodes

WALK = (library_folder() / "walk.bvh").read_text()
NODE = {n: i for i, n in enumerate(NODE_NAMES)}


def _rename(text: str, names: dict[str, str], prefix: str = "") -> str:
    def sub(m: re.Match) -> str:
        return f"{m.group(1)} {prefix}{names.get(m.group(2), m.group(2))}"
    return re.sub(r"(ROOT|JOINT) (\S+)", sub, text)


def _scaled(text: str, factor: float) -> str:
    """Every length (offsets, root positions) times ``factor``: other units."""
    head, motion = text.split("MOTION\n")
    head = re.sub(r"OFFSET (\S+) (\S+) (\S+)", lambda m: "OFFSET " + " ".join(
        repr(float(v) * factor) for v in m.groups()), head)
    lines = motion.splitlines()
    rows = [" ".join([repr(float(v) * factor) for v in r.split()[:3]] + r.split()[3:])
            for r in lines[2:]]
    return head + "MOTION\n" + "\n".join(lines[:2] + rows) + "\n"


def test_twig_files_come_back_as_recorded():
    nodes = retarget(parse_bvh(WALK, "walk.bvh"))
    np.testing.assert_allclose(nodes, library_clip("walk").nodes, atol=1e-12)


@pytest.mark.parametrize(("names", "prefix"), [
    ({"Chest": "Spine1"}, ""),                   # CMU: Spine1 is the chest
    ({"Chest": "Spine2"}, "mixamorig:"),         # Mixamo
    ({"Chest": "UpperChest", "LeftArm": "left_upper_arm", "RightArm": "Right_UpperArm",
      "LeftForeArm": "LeftLowerArm", "RightForeArm": "Right_Lower_Arm",
      "LeftUpLeg": "LeftUpperLeg", "RightUpLeg": "RightUpperLeg", "LeftLeg": "LeftLowerLeg",
      "RightLeg": "RightLowerLeg"}, ""),       # Unity / VRM humanoid
])
def test_other_naming_schemes_and_units_retarget_to_the_same_motion(names, prefix):
    text = _scaled(_rename(WALK, names, prefix), 1 / 2.54)  # inches
    nodes = retarget(parse_bvh(text, "other.bvh"))
    np.testing.assert_allclose(nodes, library_clip("walk").nodes, atol=1e-6)


def _line(text: str, joint: str) -> int:
    """The line (from 1) on which ``joint`` is declared in BVH ``text``."""
    return next(n for n, line in enumerate(text.splitlines(), start=1)
                if line.split()[1:2] == [joint] and line.split()[0] in ("ROOT", "JOINT"))


def test_a_custom_map_names_joints_the_defaults_miss():
    text = _rename(WALK, {"LeftForeArm": "lelb", "RightHand": "rwrist_x"})
    bvh = parse_bvh(text, "custom.bvh")
    with pytest.raises(RetargetError) as e:
        retarget(bvh)
    msg = str(e.value)
    assert msg.startswith(f"custom.bvh:{_line(text, 'LeftArm')}: the skeleton matches no known "
                          "convention; the closest, twig, has 13 of 15 humanoid nodes and "
                          "misses 2: ")
    assert ("l_elbow (tried LeftForeArm; expected below 'LeftArm', "
            f"line {_line(text, 'LeftArm')})") in msg
    assert (f"r_hand (tried RightHand; expected below 'RightForeArm', line "
            f"{_line(text, 'RightForeArm')})") in msg
    assert "Joints found: Hips, Spine, Chest, Neck, Head, LeftShoulder, LeftArm, lelb," in msg
    nodes = retarget(bvh, joint_map={"l_elbow": "lelb", "r_hand": "rwrist_x"})
    np.testing.assert_allclose(nodes, library_clip("walk").nodes, atol=1e-12)
    with pytest.raises(RetargetError, match="'elbow' is not a node"):
        retarget(bvh, joint_map={"elbow": "lelb"})
    with pytest.raises(RetargetError, match=r"l_elbow \(tried lower_arm; expected below"):
        retarget(bvh, joint_map={"l_elbow": "lower_arm", "r_hand": "rwrist_x"})


def test_a_file_missing_joints_lists_every_missing_node():
    text = WALK.replace("LeftUpLeg", "LThighBone").replace("Head\n", "Skull\n")
    with pytest.raises(RetargetError) as e:
        retarget(parse_bvh(text, "few.bvh"))
    msg = str(e.value)
    assert msg.startswith(f"few.bvh:{_line(text, 'Neck')}: the skeleton matches no known "
                          "convention; the closest, twig, has 13 of 15")
    assert f"head (tried Head; expected below 'Neck', line {_line(text, 'Neck')})" in msg
    assert f"l_hip (tried LeftUpLeg; expected below 'Hips', line {_line(text, 'Hips')})" in msg


def _skeleton(joints: list[tuple[str, str | None]]) -> str:
    """BVH text of joints (name, parent name; parents first), every bone 10 units up, two
    frames at rest."""
    def block(name: str, depth: int) -> list[str]:
        pad = "  " * depth
        chans = "6 Xposition Yposition Zposition" if depth == 0 else "3"
        out = [f"{pad}{'ROOT' if depth == 0 else 'JOINT'} {name}", f"{pad}{{",
               f"{pad}  OFFSET 0 {0 if depth == 0 else 10} 0",
               f"{pad}  CHANNELS {chans} Zrotation Xrotation Yrotation"]
        for child, parent in joints:
            if parent == name:
                out += block(child, depth + 1)
        return [*out, f"{pad}}}"]

    channels = 3 + 3 * len(joints)
    frame = " ".join(["0"] * channels)
    return "\n".join(["HIERARCHY", *block(joints[0][0], 0), "MOTION", "Frames: 2",
                      "Frame Time: 0.0333333", frame, frame]) + "\n"


def test_a_hierarchy_without_arms_names_the_file_the_line_and_every_missing_joint(tmp_path):
    legs = [(f"{s}{j}", f"{s}{p}" if p else "Hips") for s in ("Left", "Right")
            for j, p in (("UpLeg", None), ("Leg", "UpLeg"), ("Foot", "Leg"))]
    text = _skeleton([("Hips", None), ("Chest", "Hips"), ("Neck", "Chest"), ("Head", "Neck"),
                      *legs])
    path = tmp_path / "armless.bvh"
    path.write_text(text)
    with pytest.raises(RetargetError) as e:
        load_clip(path)
    msg = str(e.value)
    chest = _line(text, "Chest")
    assert msg.startswith(f"{path}:{chest}: the skeleton matches no known convention; the "
                          "closest, twig, has 9 of 15 humanoid nodes and misses 6: ")
    for side in ("l", "r"):
        for node in ("shoulder", "elbow", "hand"):
            assert f"{side}_{node} (tried " in msg
    assert msg.count(f"expected below 'Chest', line {chest})") == 6
    assert msg.endswith("Give the missing ones in a joint map: {node: joint name}")


def test_a_child_plays_the_adult_clip_with_its_own_bone_lengths():
    child = library_clip("walk").fit(1.1, "child")
    rest = rest_nodes(1.1, "child")
    for a, b in [*BONES[1:], ("l_hip", "r_hip")]:  # every bone rebuilt from the hips
        want = np.linalg.norm(rest[NODE[b]] - rest[NODE[a]])
        got = np.linalg.norm(child.nodes[:, NODE[b]] - child.nodes[:, NODE[a]], axis=-1)
        np.testing.assert_allclose(got, want, rtol=1e-9)
    adult = library_clip("walk")
    stride = np.ptp(adult.nodes[:, NODE["l_foot"], 2])
    assert np.ptp(child.nodes[:, NODE["l_foot"], 2]) == pytest.approx(
        stride * rest[NODE["l_hip"], 1] / rest_nodes()[NODE["l_hip"], 1], rel=0.1)


def _recorded_walk_file(tmp_path):
    """A motor-driven walk (1 s, every tick) through twig's stretch BVH (position channels
    on every joint) and the node paths recorded."""
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    kid.walk((0.3, 0.0, 1.2))
    recording = world.record()
    world.run(seconds=1)
    path = write_bvh(recording, tmp_path / "walk.bvh", stretch=True)[0]
    return load_bvh(path), recording.arrays()["pos"][:, kid.nodes]


def test_a_twig_file_plays_at_its_joint_positions_on_any_build(tmp_path):
    """twig's own skeleton (any height and preset: the builds are proportional) is played at
    the file's joint positions, stretched links and pelvis included, scaled by the leg
    lengths for another build."""
    bvh, original = _recorded_walk_file(tmp_path)
    np.testing.assert_allclose(retarget(bvh), original, atol=1e-6)
    links = np.linalg.norm(original[:, NODE["l_knee"]] - original[:, NODE["l_hip"]], axis=-1)
    assert np.ptp(links) > 1e-3  # the walk stretched the thigh: the file kept it
    child = retarget(bvh, 1.1, "child")
    scale = rest_nodes(1.1, "child")[NODE["l_hip"], 1] / rest_nodes()[NODE["l_hip"], 1]
    np.testing.assert_allclose(child, original * scale, atol=1e-6)


def test_another_build_is_rebuilt_with_the_characters_bone_lengths():
    """A skeleton whose upper arms are longer than the character's is not played at its
    joint positions: every bone takes the character's length, and the hips keep their path
    (scaled by the file's rest legs, which the arms leave alone) at the file's heights with
    ``floor=0``; by default the heights are fitted, a constant shift."""
    text = re.sub(r"(JOINT (?:Left|Right)ForeArm\n\s*\{\n\s*OFFSET) (\S+) (\S+) (\S+)",
                  lambda m: m.group(1) + "".join(f" {1.2 * float(v)!r}" for v in m.groups()[1:]),
                  WALK)
    bvh = parse_bvh(text, "long-arms.bvh")
    at_rest = rest_positions(bvh)
    rest = rest_nodes()
    upper = at_rest[bvh.index("LeftForeArm")] - at_rest[bvh.index("LeftArm")]
    assert np.linalg.norm(upper) == pytest.approx(  # centimetres
        120 * np.linalg.norm(rest[NODE["l_elbow"]] - rest[NODE["l_shoulder"]]))
    nodes = retarget(bvh, floor=0.0)
    fitted, report = retargeting(bvh)
    np.testing.assert_allclose(fitted, nodes - [0.0, report.floor, 0.0], atol=1e-12)
    assert report.played_as == "rebuilt" and abs(report.floor) < 0.01
    for a, b in [*BONES[1:], ("l_hip", "r_hip")]:
        want = np.linalg.norm(rest[NODE[b]] - rest[NODE[a]])
        got = np.linalg.norm(nodes[:, NODE[b]] - nodes[:, NODE[a]], axis=-1)
        np.testing.assert_allclose(got, want, rtol=1e-9)
    np.testing.assert_allclose(nodes[:, [NODE["l_hip"], NODE["r_hip"]]],
                               library_clip("walk").nodes[:, [NODE["l_hip"], NODE["r_hip"]]],
                               atol=1e-6)
