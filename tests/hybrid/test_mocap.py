"""Real motion capture in: CMU takes (tests/hybrid/data, see its README) found with the
default conventions, their units and rest pose told, played on the ground; other conventions'
names; a root without translation; play_clip with a Clip, a path, a joint map and a floor."""

import re
from pathlib import Path

import numpy as np
import pytest

import twig
from twig.bodies.humanoid import NODE_NAMES
from twig.hybrid import CONVENTIONS, RetargetError, load_clip, parse_bvh, play_clip, retargeting
from twig.hybrid.retarget import rest_nodes
from twig.hybrid.skeletons import END

DATA = Path(__file__).parent / "data"
WALK, HOP = DATA / "cmu_131_01_walk.bvh", DATA / "cmu_131_03_hop_metres.bvh"
HEAD, FEET = NODE_NAMES.index("head"), [NODE_NAMES.index("l_foot"), NODE_NAMES.index("r_foot")]
STANDING_FOOT = rest_nodes()[FEET[0], 1]


@pytest.mark.parametrize(("path", "unit"), [(WALK, "CMU units"), (HOP, "m")])
def test_real_cmu_takes_load_with_the_default_map_and_report_it(path, unit):
    clip = load_clip(path)
    report = clip.retargeting
    assert report.convention == "CMU 3ds Max-friendly"
    assert report.unit == unit and report.rest_pose == "arms down" and report.root_moves
    assert report.joints["l_shoulder"] == "LeftShoulder"  # the upper arm here, not the collar
    assert report.joints["l_foot"] == "LeftAnkle"
    assert str(report).startswith(f"{path}: CMU 3ds Max-friendly skeleton, {unit}, arms down")


def _play(clip, **kwargs):
    """Play ``clip`` on a standing adult to its end: the head's and the lower foot's height
    per tick, and the action."""
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    world.run(seconds=0.5)
    act = play_clip(kid, clip, **kwargs)
    head, feet = [], []
    while not act.done and world.time < 8.0:
        world.step()
        p = world.node_pos[kid.nodes]
        head.append(p[HEAD, 1])
        feet.append(p[FEET, 1].min())
    return np.array(head), np.array(feet), act


@pytest.mark.parametrize("path", [WALK, HOP])
def test_real_takes_play_standing_with_the_feet_on_the_ground(path):
    head, feet, act = _play(path)
    assert act.status == "succeeded"
    assert head.min() > 1.2
    assert feet.min() > 0.0  # no foot under the ground, blend in included
    # After the 0.5 s blend in, feet down stand where the character's own do (they floated
    # about 5 cm before the fit).
    assert abs(np.percentile(feet[30:], 10) - STANDING_FOOT) < 0.01


def test_a_root_without_translation_stays_on_the_ground(tmp_path):
    """The root's position channels removed (three.js's pirouette sample has none): the
    figure stood with its hips at the origin, feet 0.85 m under the ground."""
    head_text, motion = WALK.read_text().split("MOTION\n")
    head_text = head_text.replace("CHANNELS 6 Xposition Yposition Zposition ", "CHANNELS 3 ", 1)
    lines = motion.splitlines()
    rows = [" ".join(r.split()[3:]) for r in lines[2:]]
    path = tmp_path / "still_root.bvh"
    path.write_text(head_text + "MOTION\n" + "\n".join(lines[:2] + rows) + "\n")
    clip = load_clip(path)
    assert not clip.retargeting.root_moves
    assert clip.nodes[:, FEET, 1].min() > 0.0 and clip.nodes[:, HEAD, 1].min() > 1.2
    head, feet, act = _play(path)
    assert act.status == "succeeded" and head.min() > 1.2 and feet.min() > 0.0


def _renamed(convention: str) -> str:
    """The walk's hierarchy with its joints named as ``convention`` names them (the joints
    no node uses renamed out of the way)."""
    text = WALK.read_text()
    walk = parse_bvh(text, str(WALK))
    ours = load_clip(WALK).retargeting.joints
    names = {old: f"extra{k}" for k, old in enumerate(walk.names)}
    names.update({ours[node]: CONVENTIONS[convention][node][0] for node in ours})
    return re.sub(r"(ROOT|JOINT) (\S+)", lambda m: f"{m.group(1)} {names[m.group(2)]}", text)


@pytest.mark.parametrize("convention", [c for c in CONVENTIONS
                                        if not any(END in n[0] for n in CONVENTIONS[c].values())])
def test_every_convention_is_found_by_its_names(convention):
    bvh = parse_bvh(_renamed(convention), f"{convention}.bvh")
    nodes, report = retargeting(bvh)
    assert report.convention == convention
    np.testing.assert_allclose(nodes, load_clip(WALK).nodes, atol=1e-9)


def _without_head(text: str) -> str:
    """BVH ``text`` (Poser names) with its ``head`` joint cut: its position becomes the
    End Site of ``neck``, and its channels leave every frame."""
    bvh = parse_bvh(text)
    j = bvh.index("head")
    first = sum(len(c) for c in bvh.channels[:j])
    head, motion = text.split("MOTION\n")
    block = re.search(r"JOINT head\s*\{\s*(OFFSET [^\n]*)\n\s*CHANNELS[^\n]*\n\s*End Site"
                      r"\s*\{[^}]*\}\s*\}", head)
    head = head.replace(block.group(0), "End Site\n{\n" + block.group(1) + "\n}")
    lines = motion.splitlines()
    rows = [r.split() for r in lines[2:]]
    rows = [" ".join(r[:first] + r[first + len(bvh.channels[j]):]) for r in rows]
    return head + "MOTION\n" + "\n".join(lines[:2] + rows) + "\n"


def test_end_sites_stand_in_for_a_missing_head():
    """PyMO's and three.js's sample skeletons have no joint at the skull: the head node
    comes from the End Site above the last neck joint."""
    text = _without_head(_renamed("Poser / DAZ"))
    nodes, report = retargeting(parse_bvh(text, "no_head.bvh"))
    assert report.convention == "three.js sample"
    assert report.joints["head"] == "neck" + END
    np.testing.assert_allclose(nodes, load_clip(WALK).nodes, atol=1e-9)


def test_a_skeleton_matching_no_convention_gets_one_line_naming_the_closest():
    text = _renamed("Mixamo").replace("JOINT LeftForeArm", "JOINT Lower_L").replace(
        "JOINT Head\n", "JOINT Skull\n")
    with pytest.raises(RetargetError) as e:
        retargeting(parse_bvh(text, "odd.bvh"))
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith("odd.bvh:")
    assert "the closest, Mixamo, has 13 of 15 humanoid nodes and misses 2: " in msg
    assert "head (tried Head; expected below 'Neck'" in msg
    assert "l_elbow (tried LeftForeArm; expected below 'LeftArm'" in msg
    assert "Joints found: extra0, " in msg and "Lower_L" in msg and "Skull" in msg


def test_play_clip_takes_a_clip_a_path_a_joint_map_and_a_floor(tmp_path):
    clip = load_clip(WALK)
    _, _, act = _play(clip)  # a Clip object: AttributeError 'Clip' object has no 'lower'
    assert act.status == "succeeded"
    odd = tmp_path / "odd.bvh"
    odd.write_text(_renamed("Mixamo").replace("JOINT LeftForeArm", "JOINT Lower_L"))
    kid = twig.World(seed=0).add_humanoid("kid")
    failed = play_clip(kid, str(odd))
    assert failed.status == "failed" and "Lower_L" in failed.reason
    act = play_clip(kid, odd, joint_map={"l_elbow": "Lower_L"}, floor=0.25)
    assert act.status == "running"
    heights = load_clip(WALK, floor=0.25).nodes[..., 1]
    np.testing.assert_allclose(heights, clip.nodes[..., 1] + clip.retargeting.floor - 0.25,
                               atol=1e-12)
    bad = play_clip(kid, "wave", floor=0.1)
    assert bad.status == "failed" and "apply to BVH files" in bad.reason
