"""Retargeting: default joint names (twig, CMU, Mixamo), custom maps, missing joints, scaling."""

import re

import numpy as np
import pytest

from twig.bodies.humanoid import NODE_NAMES
from twig.hybrid import RetargetError, library_clip, parse_bvh, retarget
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
    ({"LeftArm": "left_upper_arm", "RightArm": "Right_UpperArm"}, ""),
])
def test_other_naming_schemes_and_units_retarget_to_the_same_motion(names, prefix):
    text = _scaled(_rename(WALK, names, prefix), 1 / 2.54)  # inches
    nodes = retarget(parse_bvh(text, "other.bvh"))
    np.testing.assert_allclose(nodes, library_clip("walk").nodes, atol=1e-6)


def test_a_custom_map_names_joints_the_defaults_miss():
    text = _rename(WALK, {"LeftForeArm": "lelb", "RightHand": "rwrist_x"})
    bvh = parse_bvh(text, "custom.bvh")
    with pytest.raises(RetargetError) as e:
        retarget(bvh)
    msg = str(e.value)
    assert msg.startswith("custom.bvh: no joint for 2 humanoid nodes")
    assert "l_elbow (tried LeftForeArm, LeftLowArm, LeftLowerArm)" in msg
    assert "r_hand (tried RightHand, RightWrist)" in msg
    nodes = retarget(bvh, joint_map={"l_elbow": "lelb", "r_hand": "rwrist_x"})
    np.testing.assert_allclose(nodes, library_clip("walk").nodes, atol=1e-12)
    with pytest.raises(RetargetError, match="'elbow' is not a node"):
        retarget(bvh, joint_map={"elbow": "lelb"})


def test_a_file_missing_joints_lists_every_missing_node():
    text = WALK.replace("LeftUpLeg", "LThighBone").replace("Head\n", "Skull\n")
    with pytest.raises(RetargetError) as e:
        retarget(parse_bvh(text, "few.bvh"))
    assert "head (tried Head)" in str(e.value) and "l_hip (tried LeftUpLeg" in str(e.value)


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
