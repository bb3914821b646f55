"""Friction between two bodies' capsules (``response.contact_friction``) obeys Coulomb's bound,
and holds a contact that barely slid (static friction through ``nodes["friction_hold"]``)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from twig.physics.collision import pair_table as r
from twig.physics.collision.response import contact_friction

small = st.floats(-0.0015, 0.0015)  # m: a tick's displacements in a settling pile


def _row(s: float, t: float, normal: np.ndarray, push: float, mu: float) -> tuple:
    """One capsule row: nodes 0-1 against nodes 2-3 (two bodies), closest at ``s`` and ``t``."""
    pair_i = np.array([[0, 1, 1, 1, 2, 3, 3, 3]], dtype=np.int32)
    pair_f = r.FLOATS.zeros(1)
    pair_f[0, r.COEF_A + r.N0], pair_f[0, r.COEF_A + r.N1] = 1.0 - s, s
    pair_f[0, r.COEF_B + r.N0], pair_f[0, r.COEF_B + r.N1] = 1.0 - t, t
    pair_f[0, r.FLOATS.span("normal")] = normal
    pair_f[0, r.PUSH] = push
    pair_f[0, r.MU] = mu
    pair_b = r.FLAGS.zeros(1)
    pair_b[0, r.MOVE_A] = pair_b[0, r.MOVE_B] = True
    return pair_i, pair_b, pair_f


def _relative(values: np.ndarray, s: float, t: float, normal: np.ndarray) -> np.ndarray:
    """Tangential part of side A's point less side B's, for per-node ``values`` (4, 3)."""
    v = (1 - s) * values[0] + s * values[1] - (1 - t) * values[2] - t * values[3]
    return v - (v @ normal) * normal


def _friction(pos, prev, inert, s, t, normal, push, mu, rest_slide):
    """Run the friction pass on one row; returns (prev, hold) after it."""
    pair_i, pair_b, pair_f = _row(s, t, normal, push, mu)
    prev = prev.copy()
    hold = np.zeros((4, 3))
    w = np.array([1.0, 2.0, 0.5, 1.5])
    contact_friction(pos, prev, w, np.zeros(4, dtype=np.uint8), np.zeros((4, 3)), pair_i, pair_b,
                     pair_f, 1, inert, hold, np.array([0, 0, 1, 1]), rest_slide, np.full(4, -1),
                     np.zeros(0), np.zeros(0), np.zeros((0, 3)), None, 1.0 / 60.0)
    return prev, hold


@settings(max_examples=300, deadline=None, derandomize=True)
@given(pos=arrays(np.float64, (4, 3), elements=st.floats(-0.3, 0.3)),
       step=arrays(np.float64, (4, 3), elements=small),
       forced=arrays(np.float64, (4, 3), elements=small),
       st_=st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)),
       axis=arrays(np.float64, 3, elements=st.floats(-1.0, 1.0)),
       push=st.floats(0.0005, 0.004), mu=st.floats(0.2, 1.5))
def test_friction_never_exceeds_mu_times_the_push(pos, step, forced, st_, axis, push, mu):
    """Slowing the slide and holding one back together change the contact's relative
    tangential displacement by at most ``mu * push``: Coulomb's bound on the impulse."""
    if np.linalg.norm(axis) < 1e-3:
        return
    normal = axis / np.linalg.norm(axis)
    s, t = st_
    prev = pos - step
    inert = pos - forced  # the slide gravity and the constraints made this tick: ``forced``
    new_prev, hold = _friction(pos, prev, inert, s, t, normal, push, mu, 0.0027)
    slowed = _relative(prev - new_prev, s, t, normal)  # what the velocity lost, as a shift
    held = _relative(hold, s, t, normal)
    assert np.linalg.norm(slowed) + np.linalg.norm(held) <= mu * push * (1 + 1e-9) + 1e-15


@settings(max_examples=200, deadline=None, derandomize=True)
@given(step=arrays(np.float64, (4, 3), elements=st.floats(-0.0003, 0.0003)),
       forced=arrays(np.float64, (4, 3), elements=st.floats(-0.0003, 0.0003)))
def test_a_contact_that_barely_slid_is_held(step, forced):
    """A contact pressed by 3 mm with friction 1 that slid under 1 mm this tick: its
    relative tangential velocity is cut to zero and the slide it was forced into this tick is
    held back from the next one, in full."""
    pos = np.array([[-0.5, 0.1, 0.0], [0.5, 0.1, 0.0], [0.0, 0.0, -0.5], [0.0, 0.0, 0.5]])
    normal = np.array([0.0, 1.0, 0.0])
    new_prev, hold = _friction(pos, pos - step, pos - forced, 0.5, 0.5, normal, 0.003, 1.0,
                               0.0027)
    np.testing.assert_allclose(_relative(pos - new_prev, 0.5, 0.5, normal), 0.0, atol=1e-15)
    np.testing.assert_allclose(_relative(hold, 0.5, 0.5, normal),
                               -_relative(forced, 0.5, 0.5, normal), atol=1e-15)


def test_no_hold_past_the_rest_slide_or_with_the_hold_off():
    pos = np.array([[-0.5, 0.1, 0.0], [0.5, 0.1, 0.0], [0.0, 0.0, -0.5], [0.0, 0.0, 0.5]])
    normal = np.array([0.0, 1.0, 0.0])
    forced = np.zeros((4, 3))
    forced[:2, 0] = 0.002  # side A was forced 2 mm along x this tick
    for rest_slide, held in ((0.0027, True), (0.0015, False), (0.0, False)):
        _, hold = _friction(pos, pos.copy(), pos - forced, 0.5, 0.5, normal, 0.01, 1.0,
                            rest_slide)
        assert np.any(hold != 0.0) == held
