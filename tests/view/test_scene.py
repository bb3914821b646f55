"""What the viewer and the video draw: primitives placed from node positions, colours, meshes."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import twig
from twig.scenes import load_scene
from twig.view.palette import CHARACTER_COLORS, body_colors, character_color
from twig.view.scene import THIN_RADIUS, build_layout, frame_meshes, place
from twig.view.transforms import quat_from_matrix, quat_z_to, rotate

vectors = arrays(np.float64, (8, 3), elements=st.floats(-10, 10, allow_nan=False))


@given(vectors)
def test_quat_z_to_turns_z_onto_each_direction(d):
    n = np.linalg.norm(d, axis=1)
    d = d[n > 1e-3]
    q = quat_z_to(d)
    z = rotate(q, np.tile((0.0, 0.0, 1.0), (len(d), 1)))
    np.testing.assert_allclose(z, d / np.linalg.norm(d, axis=1, keepdims=True), atol=1e-9)


def test_quat_z_to_handles_straight_down():
    z = rotate(quat_z_to(np.array([[0.0, 0.0, -2.0]])), np.array([[0.0, 0.0, 1.0]]))
    np.testing.assert_allclose(z, [[0.0, 0.0, -1.0]], atol=1e-12)


@given(arrays(np.float64, (6, 4), elements=st.floats(-1, 1, allow_nan=False)))
def test_quat_from_matrix_rebuilds_the_rotation(q):
    q = q[np.linalg.norm(q, axis=1) > 0.1]
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    rot = np.stack([rotate(q, np.tile(e, (len(q), 1))) for e in np.eye(3)], axis=2)
    back = quat_from_matrix(rot)
    for e in np.eye(3):
        np.testing.assert_allclose(rotate(back, np.tile(e, (len(q), 1))),
                                   rotate(q, np.tile(e, (len(q), 1))), atol=1e-9)


def test_humanoid_capsules_follow_its_links_and_joints_are_as_thick_as_their_capsules():
    world = twig.World()
    kid = world.add_humanoid("kid", height=1.1)
    world.step(20)
    layout = build_layout(world)
    prims = place(layout.look, world.node_pos)
    assert len(prims.cyl_pos) == 13                      # the 13 visible links
    a, b = (world.node_pos[layout.look.cyl_nodes[:, k]] for k in (0, 1))
    np.testing.assert_allclose(prims.cyl_scale[:, 2], np.linalg.norm(b - a, axis=1))
    np.testing.assert_allclose(prims.cyl_pos, (a + b) / 2)
    # The capsule radius is the collision capsule's; each joint sphere the thickest there.
    vol = world.volumes
    caps = {frozenset(map(int, vol["nodes"][i, :2])): vol["radius"][i] for i in range(len(vol))}
    for (i, j), r in zip(layout.look.cyl_nodes, prims.cyl_scale[:, 0], strict=True):
        assert r == caps[frozenset((int(i), int(j)))]
    head = list(layout.look.sph_nodes).index(kid.node("head"))
    assert prims.sph_scale[head] == caps[frozenset((kid.node("neck"), kid.node("head")))]
    assert (layout.look.cyl_color == CHARACTER_COLORS[0]).all()


def test_box_primitive_matches_the_box_volume_as_it_tumbles():
    world = twig.World()
    block = world.add_block("crate", position=(0, 2, 0), size=(0.6, 0.4, 0.2), yaw=0.7,
                            velocity=(1, 0, 0))
    world.step(50)
    layout = build_layout(world)
    prims = place(layout.look, world.node_pos)
    np.testing.assert_allclose(np.sort(prims.box_scale[0]), [0.2, 0.4, 0.6], atol=1e-3)
    # The box's lowest corner rests on the ground (y = 0) after the fall.
    corners = np.array([[x, y, z] for x in (-.5, .5) for y in (-.5, .5) for z in (-.5, .5)])
    world_corners = rotate(np.tile(prims.box_quat[0], (8, 1)), corners * prims.box_scale[0])
    assert abs((world_corners + prims.box_pos[0])[:, 1].min()) < 0.02
    np.testing.assert_allclose(prims.box_pos[0], block.centroid, atol=1e-6)


def test_links_without_capsules_are_thin_and_cloth_is_a_mesh():
    world = load_scene("demo")
    world.add_body("pair", "thing", [(0, 1, 0), (0, 1.5, 0)])
    world.add_links([[world.n_nodes - 2, world.n_nodes - 1]])
    layout = build_layout(world)
    prims = place(layout.look, world.node_pos)
    assert prims.cyl_scale[-1, 0] == THIN_RADIUS
    cloth = world.body("cloth")
    assert layout.mesh_bodies == (cloth.id,)
    assert not np.isin(layout.look.cyl_body, [cloth.id]).any()
    (mesh,) = frame_meshes(world, layout)
    assert mesh.name == "cloth" and len(mesh.faces) == 2 * 15 * 15
    np.testing.assert_array_equal(mesh.vertices, world.node_pos[cloth.nodes])


def test_collision_volumes_include_every_capsule_and_sphere():
    world = twig.World()
    world.add_humanoid("kid")
    world.add_ball("ball", position=(1, 1, 0))
    layout = build_layout(world)
    assert len(layout.volumes.cyl_nodes) == 13
    assert len(layout.volumes.sph_nodes) == 2 * 13 + 1


def test_every_character_has_its_own_colour_among_its_neighbours():
    colors = body_colors(["humanoid"] * 100 + ["ball", "cloth"])
    assert len({tuple(c) for c in colors[:8]}) == 8
    neighbours = np.abs(colors[1:100].astype(int) - colors[:99].astype(int)).sum(axis=1)
    assert neighbours.min() > 60
    assert tuple(colors[100]) != tuple(character_color(100))
