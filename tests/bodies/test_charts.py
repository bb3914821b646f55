"""Charts and atlases (Horswill 2009, VIII.A): frames on an object's surface, from its nodes."""

import numpy as np
import pytest
from box_helpers import box_faces
from hypothesis import given
from hypothesis import strategies as st

import twig
from twig.bodies.charts import Chart, add_chart, chart
from twig.errors import PhysicsError, UnknownNameError


def _rotation(axis, angle):
    axis = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def _front_face(world, clipboard):
    """Centre, outward normal and the in-face half axes of the clipboard board's face nearest
    the front chart now, from the collision code's own box (not from the chart)."""
    faces = box_faces(world, clipboard, which=0)  # the board (box 1 is the clip)
    return max(faces, key=lambda f: f[1] @ world.atlas(clipboard)["front"].normal)


@pytest.fixture
def clipboard_world():
    world = twig.World(seed=0)
    return world, world.add_clipboard("clipboard", position=(0.5, 0.01, -0.3), yaw=0.4)


def test_a_point_in_the_front_chart_lies_on_the_clipboard_front(clipboard_world):
    world, clipboard = clipboard_world
    front = world.atlas(clipboard)["front"]
    centre, normal, half_u, half_v = _front_face(world, clipboard)
    # The writing area is the front face below the clip (the top tenth of the board).
    np.testing.assert_allclose(front.origin, centre - 0.1 * half_v, atol=1e-12)
    np.testing.assert_allclose(front.normal, (0.0, 1.0, 0.0), atol=1e-12)  # front up
    point = front.to_world((0.05, 0.0, -0.1))
    assert abs((point - centre) @ normal) < 1e-12  # on the face's plane...
    assert abs((point - centre) @ half_u) / (half_u @ half_u) <= 1.0  # ...inside it
    assert abs((point - centre) @ half_v) / (half_v @ half_v) <= 1.0
    assert front.on_surface(point) and not front.on_surface(front.to_world((0.2, 0.0, 0.0)))
    above = front.to_world((0.05, 0.02, -0.1))
    np.testing.assert_allclose(above - point, 0.02 * normal, atol=1e-12)  # y > 0 is above


def test_the_chart_point_follows_the_clipboard_when_moved_and_rotated(clipboard_world):
    world, clipboard = clipboard_world
    local = np.array([-0.08, 0.0, 0.12])
    before = world.atlas(clipboard)["front"].to_world(local)
    turn = _rotation((1.0, 2.0, -0.5), 2.1)  # turned over and about
    pivot = clipboard.centroid
    shift = np.array([0.3, 1.5, -0.2])
    moved = (clipboard.positions - pivot) @ turn.T + pivot + shift
    world.set_position(clipboard.nodes, moved, keep_velocity=False)
    after = world.atlas(clipboard)["front"]
    np.testing.assert_allclose(after.to_world(local), (before - pivot) @ turn.T + pivot + shift,
                               atol=1e-12)
    np.testing.assert_allclose(after.normal, turn @ (0.0, 1.0, 0.0), atol=1e-12)


def test_in_flight_and_after_tumbling_to_rest_the_chart_is_on_the_front_face():
    world = twig.World(seed=0)
    clipboard = world.add_clipboard("clipboard", position=(0.0, 1.0, 0.0),
                                    velocity=(0.5, 0.0, 0.0))
    world.set_velocity(clipboard.node("bottom_right"), (0.5, 1.5, 0.0))  # a tumble
    local = np.array([0.1, 0.0, 0.13])
    for seconds, tolerance in ((0.2, 1e-3), (2.8, 1e-4)):  # in flight, then at rest
        world.run(seconds=seconds)
        front = world.atlas(clipboard)["front"]
        centre, normal, half_u, half_v = _front_face(world, clipboard)
        point = front.to_world(local)
        assert abs((point - centre) @ normal) < tolerance
        assert abs((point - centre) @ half_u) / (half_u @ half_u) <= 1.0 + tolerance
        assert abs((point - centre) @ half_v) / (half_v @ half_v) <= 1.0 + tolerance
        np.testing.assert_allclose(front.normal, normal, atol=2 * tolerance)
    assert world.is_asleep(clipboard) and clipboard.link_errors().max() < 1e-4


def test_snapshot_restore_keeps_charts_and_later_charts_do_not_leak_into_snapshots():
    world = twig.World(seed=0)
    table = world.add_table("table", position=(0.0, 0.0, 0.0))
    snap = world.snapshot()
    frame = range(table.nodes.start, table.nodes.stop)
    add_chart(world, table, "edge", frame, (0.6, 0.75, 0.0), np.eye(3)[[1, 0, 2]] * (1, -1, 1))
    assert set(world.atlas(table)) == {"top", "edge"}
    world.remove_body(table)
    world.restore(snap)
    assert set(world.atlas("table")) == {"top"}
    np.testing.assert_allclose(world.atlas("table")["top"].origin, (0.0, 0.75, 0.0), atol=1e-12)


def test_unknown_chart_names_the_object_and_its_charts():
    world = twig.World()
    chair = world.add_chair("chair", position=(0.0, 0.0, 0.0))
    with pytest.raises(UnknownNameError, match=r"'chair' \(chair\) has no chart 'front'.*seat"):
        chart(chair, "front")
    assert world.atlas(world.add_ball("ball", position=(2.0, 0.2, 0.0))) == {}


def test_a_chart_needs_four_frame_nodes_of_its_body():
    world = twig.World()
    table = world.add_table("table", position=(0.0, 0.0, 0.0))
    with pytest.raises(PhysicsError, match="needs 4 different nodes"):
        add_chart(world, table, "edge", [0, 1, 2, 2], (0, 0.75, 0), np.eye(3))
    with pytest.raises(PhysicsError, match="right-handed"):
        add_chart(world, table, "edge", [0, 1, 2, 3], (0, 0.75, 0), np.diag([1.0, 1.0, -1.0]))
    assert set(world.atlas(table)) == {"top"}


@given(st.floats(-0.2, 0.2), st.floats(-0.05, 0.3), st.floats(-0.2, 0.2),
       st.floats(-np.pi, np.pi), st.floats(0.1, 3.0))
def test_to_world_and_from_world_are_inverse(x, y, z, yaw, height):
    world = twig.World()
    table = world.add_table("table", position=(1.0, 0.0, 2.0), height=height, facing=yaw)
    top: Chart = world.atlas(table)["top"]
    point = top.to_world((x, y, z))
    np.testing.assert_allclose(top.from_world(point), (x, y, z), atol=1e-9)
    assert abs(point[1] - height - y) < 1e-9  # the table's top chart: y is height over it
    np.testing.assert_allclose(top.axes @ top.axes.T, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(np.cross(top.axes[0], top.axes[1]), top.axes[2], atol=1e-12)
