"""A YIELDING set-point node (a striking fist) gives way to a character it presses into: in a
capsule contact with a STIFF node it takes its true inverse mass, where a plain set-point
node is immovable; against anything else it stays immovable (flags.YIELDING)."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from twig.physics.collision import pair_table as pt
from twig.physics.collision.capsules import capsule_contact, segment_params
from twig.physics.flags import MOVING, STIFF, YIELDING

DT = 1.0 / 60.0


def _press(fist_flags: int, other_flags: int, depth: float, rows: tuple[int, int]):
    """A forearm (elbow node 0, fist node 1) pressed ``depth`` m into a trunk (nodes 2, 3)
    across its fist end; one projection. Returns how far the fist and the trunk moved (m)."""
    pos = np.array([[-0.3, 1.0, 0.0], [0.0, 1.0, 0.0],
                    [0.1 - depth, 0.5, 0.0], [0.1 - depth, 1.5, 0.0]])
    start = pos.copy()
    inv_mass = np.array([2.0, 3.0, 0.25, 0.25])
    w = inv_mass.copy()
    w[1] = 0.0  # driven: immovable in the projection
    flags = np.array([STIFF, fist_flags, other_flags, other_flags], dtype=np.uint8)
    pair_i = np.array([[0, 1, 1, 1, 2, 3, 3, 3]], dtype=np.int32)
    pair_b = pt.FLAGS.zeros(1)
    pair_b[0, pt.MOVE_A] = pair_b[0, pt.MOVE_B] = True
    pair_f = pt.FLOATS.zeros(1)
    pair_f[0, pt.GAP] = math.inf
    pair_f[0, pt.ALLOWED] = 1.0
    s, t = segment_params(pos, 0, 1, 2, 3)
    capsule_contact(pos, pos.copy(), w, inv_mass, flags, np.zeros((4, 3)), pair_i, pair_b,
                    pair_f, 0, 0.05, 0.05, s, t, True, DT, np.array(rows),
                    np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64))
    moved = np.linalg.norm(pos - start, axis=1)
    return moved[1], moved[2]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(depth=st.floats(0.005, 0.08), own=st.booleans())
def test_a_yielding_fist_gives_way_to_a_character(depth, own):
    rows = (0, 0, 0, 0) if own else (0, 0, 1, 1)  # its own trunk, or another's
    fist, trunk = _press(MOVING | YIELDING | STIFF, STIFF, depth, rows)
    assert fist > 0.5 * depth  # the light fist takes most of the separation
    assert trunk < 0.2 * depth
    rigid_fist, rigid_trunk = _press(MOVING | STIFF, STIFF, depth, rows)
    assert rigid_fist == 0.0 and rigid_trunk > 0.9 * depth  # immovable: the trunk takes it


@settings(max_examples=10, deadline=None, derandomize=True)
@given(depth=st.floats(0.005, 0.08))
def test_a_yielding_fist_is_immovable_against_what_is_not_a_character(depth):
    fist, thing = _press(MOVING | YIELDING | STIFF, 0, depth, (0, 0, 1, 1))
    assert fist == 0.0 and thing > 0.9 * depth
