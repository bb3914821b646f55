"""The recording arrays of DESIGN.md, also across bodies added and removed mid-recording."""

import numpy as np

import twig


def test_recording_has_the_design_arrays_every_tick(tmp_path):
    world = twig.load_scene("tetra")
    recording = world.record()
    world.step(30)
    path = tmp_path / "out.npz"
    recording.save(path)
    data = np.load(path)
    assert data["t"].shape == (31,) and np.allclose(np.diff(data["t"]), 1 / 60)
    assert data["pos"].shape == (31, 4, 3)
    np.testing.assert_array_equal(data["pos"][-1], world.node_pos)
    assert list(data["node_name"]) == ["tetra/0", "tetra/1", "tetra/2", "tetra/3"]
    assert set(data["node_body"]) == {"tetra"} and set(data["body_type"]) == {"tetrahedron"}
    assert data["link"].shape == (6, 2) and data["link_rest"].shape == (6,)
    assert data["link_visible"].all()


def test_bodies_added_and_removed_while_recording_keep_their_columns():
    world = twig.World()
    world.add_stick("a", (0.0, 1.0, 0.0))
    recording = world.record(every=2)
    world.step(4)
    world.add_stick("b", (2.0, 1.0, 0.0))
    world.step(4)
    world.body("a").remove()
    world.step(4)
    arrays = recording.arrays()
    assert list(arrays["node_name"]) == ["a/a", "a/b", "b/a", "b/b"]
    pos = arrays["pos"]
    assert pos.shape == (7, 4, 3)
    assert np.isnan(pos[:3, 2:]).all() and np.isfinite(pos[3:, 2:]).all()
    assert np.isfinite(pos[:5, :2]).all() and np.isnan(pos[5:, :2]).all()
    recording.stop()
    world.step(4)
    assert len(recording) == 7
