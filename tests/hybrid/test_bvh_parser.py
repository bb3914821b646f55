"""The BVH parser: any standard hierarchy, forward kinematics, and errors that name the line."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from twig.hybrid import BvhError, joint_positions, parse_bvh

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
