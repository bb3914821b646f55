"""The BVH parser: any standard hierarchy, forward kinematics, and errors that name the line."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twig.errors import TwigError
from twig.hybrid import BvhError, RetargetError, joint_positions, load_clip, parse_bvh

SIMPLE = """HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Spine
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 5 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.0333333
1 2 3 0 0 0 0 0 0
1 2 3 90 0 0 0 0 0
"""


def test_a_simple_file_parses_and_its_joints_follow_their_rotations():
    bvh = parse_bvh(SIMPLE, "simple.bvh")
    assert bvh.names == ("Hips", "Spine")
    assert bvh.frames == 2 and bvh.frame_time == pytest.approx(1 / 30, rel=1e-5)
    p = joint_positions(bvh)
    np.testing.assert_allclose(p[0], [[1, 2, 3], [1, 12, 3]], atol=1e-12)
    # 90 degrees about z turns the spine's +y offset to -x.
    np.testing.assert_allclose(p[1, 1], [1 - 10, 2, 3], atol=1e-9)
    np.testing.assert_allclose(bvh.end_sites[1], [0, 5, 0])


def _error(text: str) -> str:
    with pytest.raises(BvhError) as e:
        parse_bvh(text, "bad.bvh")
    return str(e.value)


def test_unknown_channel_names_the_line_and_the_channels_expected():
    msg = _error(SIMPLE.replace("CHANNELS 3 Zrotation Xrotation Yrotation",
                                "CHANNELS 3 Zrotation Qrotation Yrotation"))
    assert msg.startswith("bad.bvh:9: expected a channel name")
    assert "'Qrotation'" in msg and "Xposition" in msg


def test_truncated_motion_names_the_line():
    msg = _error(SIMPLE.rsplit("1 2 3 90", 1)[0])
    assert msg.startswith("bad.bvh:19:") and "expected 2 frames" in msg and "truncated" in msg
    msg = _error(SIMPLE.replace("1 2 3 90 0 0 0 0 0", "1 2 3 90 0 0"))
    assert msg.startswith("bad.bvh:20: expected 9 channel values in frame 2, got 6")


@pytest.mark.parametrize("channels", ["Zrotation Xrotation Zrotation",
                                      "Zrotation Xrotation zROTATION"])
def test_a_rotation_axis_given_twice_names_the_line(channels):
    msg = _error(SIMPLE.replace("CHANNELS 3 Zrotation Xrotation Yrotation",
                                f"CHANNELS 3 {channels}"))
    assert msg.startswith("bad.bvh:9: expected a channel named once")
    assert msg.endswith(f"got {channels.split()[2]!r}")


def test_a_missing_brace_or_keyword_names_the_line():
    assert _error(SIMPLE.replace("  JOINT Spine\n  {", "  JOINT Spine\n")).startswith(
        "bad.bvh:8: expected '{'")
    assert _error(SIMPLE.replace("OFFSET 0 10 0", "OFFSET 0 ten 0")).startswith(
        "bad.bvh:8: expected an OFFSET number, got 'ten'")
    assert "'MOTION'" in _error(SIMPLE.replace("MOTION\n", ""))


_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ_:", min_size=1, max_size=8)
_orders = st.permutations(["Xrotation", "Yrotation", "Zrotation"])


@st.composite
def hierarchies(draw):
    """(text, parents, offsets, motion) of a random valid BVH file."""
    n = draw(st.integers(1, 7))
    names = draw(st.lists(_names, min_size=n, max_size=n, unique=True))
    parents = [-1] + [draw(st.integers(0, k - 1)) for k in range(1, n)]
    offsets = draw(st.lists(st.tuples(*[st.floats(-50, 50, allow_nan=False)] * 3),
                            min_size=n, max_size=n))
    orders = [draw(_orders) for _ in range(n)]
    frames = draw(st.integers(1, 4))
    channels = 6 + 3 * (n - 1)
    motion = np.array(draw(st.lists(st.floats(-180, 180), min_size=frames * channels,
                                    max_size=frames * channels))).reshape(frames, channels)

    def block(j, depth):
        pad = "  " * depth
        chans = (["Xposition", "Yposition", "Zposition"] if j == 0 else []) + orders[j]
        out = [f"{pad}{'ROOT' if j == 0 else 'JOINT'} {names[j]}", f"{pad}{{",
               f"{pad}  OFFSET {offsets[j][0]!r} {offsets[j][1]!r} {offsets[j][2]!r}",
               f"{pad}  CHANNELS {len(chans)} {' '.join(chans)}"]
        for child in range(n):
            if parents[child] == j and child != j:
                out += block(child, depth + 1)
        return [*out, f"{pad}}}"]

    # Children must come after their parent in file order: number joints depth first.
    text = "\n".join(["HIERARCHY", *block(0, 0), "MOTION", f"Frames: {frames}",
                      "Frame Time: 0.0166667",
                      *(" ".join(repr(float(v)) for v in row) for row in motion)]) + "\n"
    return text, names, parents, motion


@settings(max_examples=60, deadline=None)
@given(hierarchies())
def test_any_valid_hierarchy_parses_with_its_joints_and_motion(case):
    text, names, parents, motion = case
    bvh = parse_bvh(text)
    assert set(bvh.names) == set(names)
    np.testing.assert_array_equal(np.sort(bvh.motion.ravel()), np.sort(motion.ravel()))
    for j, p in enumerate(bvh.parents):
        if p >= 0:
            assert parents[names.index(bvh.names[j])] == names.index(bvh.names[p])
    pos = joint_positions(bvh)
    assert pos.shape == (len(motion), len(names), 3) and np.isfinite(pos).all()
    # Bone lengths are the offsets' whatever the rotations.
    for j, p in enumerate(bvh.parents):
        if p >= 0:
            length = np.linalg.norm(pos[:, j] - pos[:, p], axis=-1)
            np.testing.assert_allclose(length, np.linalg.norm(bvh.offsets[j]), atol=1e-6)


@settings(max_examples=80, deadline=None)
@given(hierarchies(), st.data())
def test_a_damaged_file_fails_only_with_a_bvh_error_naming_a_line(case, data):
    text = case[0]
    cut = data.draw(st.integers(0, len(text) - 1))
    damaged = text[:cut] + data.draw(st.sampled_from(["", "x", "{", "}", " 1e999", "\n"])) \
        + text[cut + data.draw(st.integers(0, 3)):]
    try:
        parse_bvh(damaged, "d.bvh")
    except BvhError as e:
        assert str(e).startswith("d.bvh:")
        assert str(e).split(":")[1].isdigit()
        assert "\n" not in str(e)  # one line


@settings(max_examples=150, deadline=None)
@given(hierarchies(), st.data())
def test_a_truncated_file_always_fails_with_a_bvh_error_naming_a_line(case, data):
    """Cut anywhere before the start of its last number, a valid file is never valid: the
    parser says so with a BvhError naming a line of what it was given, never another
    exception."""
    text = case[0]
    last = len(text.rstrip()) - len(text.rstrip().split()[-1])
    cut = data.draw(st.integers(0, last - 1))
    truncated = text[:cut]
    with pytest.raises(BvhError) as e:
        parse_bvh(truncated, "cut.bvh")
    where = str(e.value).split(":")
    assert where[0] == "cut.bvh"
    assert 1 <= int(where[1]) <= max(1, len(truncated.splitlines()))


def _chain(depth: int) -> str:
    """BVH text of a chain of ``depth`` joints, each 1 unit above its parent, one frame."""
    opening = [f"{'ROOT' if k == 0 else 'JOINT'} j{k}\n{{\nOFFSET 0 {min(k, 1)} 0\n"
               f"CHANNELS {6 if k == 0 else 3} "
               f"{'Xposition Yposition Zposition ' if k == 0 else ''}Zrotation Xrotation "
               "Yrotation\n" for k in range(depth)]
    values = " ".join(["0"] * (3 + 3 * depth))
    return ("HIERARCHY\n" + "".join(opening) + "End Site\n{\nOFFSET 0 1 0\n}\n"
            + "}\n" * depth + f"MOTION\nFrames: 1\nFrame Time: 0.033\n{values}\n")


def test_a_hierarchy_three_thousand_deep_is_read_and_refused_in_one_line(tmp_path):
    """The parser recursed once per joint: 3,000 deep raised RecursionError."""
    text = _chain(3000)
    bvh = parse_bvh(text, "deep.bvh")
    assert len(bvh.names) == 3000 and bvh.parents[-1] == 2998
    assert joint_positions(bvh)[0, -1, 1] == pytest.approx(2999)
    path = tmp_path / "deep.bvh"
    path.write_text(text)
    with pytest.raises(RetargetError) as e:
        load_clip(path)
    msg = str(e.value)
    assert "\n" not in msg and len(msg) < 2000
    assert msg.startswith(f"{path}:") and "(3000 in all)" in msg
    unclosed = text.replace("}\n" * 3000, "}\n" * 2999)
    assert _error(unclosed).startswith("bad.bvh:") and "closing joint 'j0'" in _error(unclosed)


@settings(max_examples=100, deadline=None)
@given(hierarchies(), st.data())
def test_any_damage_to_a_file_on_disk_gives_one_line_from_load_clip(tmp_path_factory, case,
                                                                    data):
    """Reading a damaged file the way users do (``load_clip``: parse, match, retarget) ends
    in a result or in one of twig's errors, one line naming the file, never a traceback of
    another exception."""
    text = case[0].encode()
    edits = data.draw(st.lists(st.tuples(st.integers(0, len(text)), st.binary(max_size=4),
                                         st.integers(0, 6)), max_size=4))
    for at, insert, drop in edits:
        text = text[:at] + insert + text[at + drop:]
    path = tmp_path_factory.mktemp("fuzz") / "f.bvh"
    path.write_bytes(text)
    try:
        load_clip(path)
    except TwigError as e:
        assert "\n" not in str(e) and str(e).startswith(str(path))
