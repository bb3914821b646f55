"""Box models: props from mesh files, colliding as their oriented bounding box."""

import numpy as np
import pytest
import trimesh
from box_helpers import box_corners, box_volumes
from hypothesis import given
from hypothesis import strategies as st

import twig
from twig.bodies.mesh import body_mesh, mesh_pose, oriented_box
from twig.errors import AssetError, SceneError

EXTENTS = (0.6, 0.2, 0.4)
YAW_IN_FILE = 0.5


def _rotation(axis, angle):
    return trimesh.transformations.rotation_matrix(angle, axis)


def _write_box(path, transform=None):
    """A box primitive of EXTENTS, turned YAW_IN_FILE about y, its base 0.3 m above the mesh
    origin (then ``transform``), exported to ``path`` (format from the suffix)."""
    mesh = trimesh.creation.box(extents=EXTENTS)
    mesh.apply_transform(_rotation((0, 1, 0), YAW_IN_FILE))
    mesh.apply_translation((0.0, 0.3 + EXTENTS[1] / 2, 0.0))
    if transform is not None:
        mesh.apply_transform(transform)
    mesh.export(path)
    return path


def test_a_box_model_from_a_glb_has_the_right_obb_and_rests_flat(tmp_path):
    world = twig.World(seed=0)
    model = world.add_box_model("crate", position=(1.0, 0.0, 2.0),
                                path=_write_box(tmp_path / "crate.glb"))
    ((centre, half),) = box_volumes(world, model)
    np.testing.assert_allclose(centre, (1.0, 0.4, 2.0), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(half, axis=1), np.array(EXTENTS) / 2, atol=1e-6)
    # The box's x axis is the mesh's turned x axis (up to sign): the OBB is the box itself.
    turned_x = _rotation((0, 1, 0), YAW_IN_FILE)[:3, 0]
    assert abs(half[0] @ turned_x) / np.linalg.norm(half[0]) == pytest.approx(1.0, abs=1e-6)
    world.run(seconds=2.0)
    corners = box_corners(world, model)
    heights = np.sort(corners[:, 1])
    np.testing.assert_allclose(heights[:4], 0.0, atol=2e-3)  # four corners on the ground
    np.testing.assert_allclose(heights[4:], EXTENTS[1], atol=2e-3)  # the top level above
    np.testing.assert_allclose(world.atlas(model)["top"].normal, (0.0, 1.0, 0.0), atol=1e-3)
    assert world.is_asleep(model)


def test_a_tilted_mesh_gets_a_tilted_box_and_falls_onto_a_face(tmp_path):
    world = twig.World(seed=0)
    path = _write_box(tmp_path / "tilted.stl", _rotation((1, 0, 0), 0.35))
    model = world.add_box_model("tilted", position=(0.0, 0.2, 0.0), path=path)
    ((_, half),) = box_volumes(world, model)
    assert abs(half[1] @ (0.0, 1.0, 0.0)) / np.linalg.norm(half[1]) == pytest.approx(
        np.cos(0.35), abs=1e-6)
    world.run(seconds=3.0)
    ((_, half),) = box_volumes(world, model)
    units = half / np.linalg.norm(half, axis=1, keepdims=True)
    assert np.abs(units[:, 1]).max() == pytest.approx(1.0, abs=2e-3)  # one axis vertical
    np.testing.assert_allclose(np.sort(box_corners(world, model)[:, 1])[:4], 0.0, atol=3e-3)


def test_obj_glb_and_stl_give_the_same_prop(tmp_path):
    worlds = []
    for suffix in ("obj", "glb", "stl"):
        world = twig.World()
        world.add_box_model("m", position=(0.0, 0.0, 0.0),
                            path=_write_box(tmp_path / f"m.{suffix}"), scale=2.0)
        worlds.append(world)
    for world in worlds[1:]:
        np.testing.assert_allclose(world.node_pos, worlds[0].node_pos, atol=1e-6)
    ((centre, half),) = box_volumes(worlds[0], worlds[0].body("m"))
    np.testing.assert_allclose(centre, (0.0, 0.8, 0.0), atol=1e-6)  # scaled by 2
    np.testing.assert_allclose(np.linalg.norm(half, axis=1), EXTENTS, atol=1e-6)


def test_the_mesh_follows_the_nodes_for_renderers(tmp_path):
    world = twig.World(seed=0)
    path = _write_box(tmp_path / "crate.glb")
    model = world.add_box_model("crate", position=(0.0, 1.0, 0.0), path=path, yaw=0.8,
                                velocity=(1.0, 0.0, 0.5))
    world.set_velocity(model.node("f0"), (1.0, 3.0, 0.5))  # tumble
    source = trimesh.load(path, force="mesh")
    for _ in range(3):
        world.run(seconds=0.4)
        vertices, faces = body_mesh(world, "crate")
        np.testing.assert_array_equal(faces, source.faces)
        ((centre, half),) = box_volumes(world, model)
        local = np.linalg.solve(half.T, (vertices - centre).T).T  # box coordinates
        assert np.abs(local).max() == pytest.approx(1.0, abs=2e-3)  # on the box's surface
        rotation, translation = mesh_pose(model)
        np.testing.assert_allclose(rotation @ rotation.T, np.eye(3), atol=1e-12)
        assert np.linalg.det(rotation) == pytest.approx(1.0)
        np.testing.assert_allclose(translation, centre, atol=1e-9)
    # The mesh is the file's mesh, moved rigidly: its edge lengths are unchanged.
    edges = source.edges_unique
    np.testing.assert_allclose(
        np.linalg.norm(vertices[edges[:, 0]] - vertices[edges[:, 1]], axis=1),
        source.edges_unique_length, atol=1e-3)


@given(st.floats(0.05, 2.0), st.floats(0.05, 2.0), st.floats(0.05, 2.0),
       st.tuples(st.floats(-1, 1), st.floats(-1, 1), st.floats(-1, 1)).filter(
           lambda a: np.linalg.norm(a) > 0.1),
       st.floats(-np.pi, np.pi))
def test_the_obb_of_a_box_is_the_box(ex, ey, ez, axis, angle):
    mesh = trimesh.creation.box(extents=(ex, ey, ez))
    mesh.apply_transform(_rotation(axis, angle))
    mesh.apply_translation((0.3, -1.0, 2.0))
    centre, axes, half = oriented_box(np.asarray(mesh.vertices))
    np.testing.assert_allclose(centre, (0.3, -1.0, 2.0), atol=1e-6)
    np.testing.assert_allclose(axes @ axes.T, np.eye(3), atol=1e-9)
    assert np.linalg.det(axes) == pytest.approx(1.0)
    np.testing.assert_allclose(np.sort(2 * half), np.sort((ex, ey, ez)), atol=1e-6)
    local = (np.asarray(mesh.vertices) - centre) @ axes.T
    np.testing.assert_allclose(np.abs(local), np.broadcast_to(half, local.shape), atol=1e-6)
    assert abs(axes[1, 1]) == np.abs(axes[:, 1]).max()  # y is the axis closest to up


def _garbage(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    return path


@pytest.mark.parametrize("make, message", [
    (lambda d: d / "missing.glb", r"crate: field 'path': mesh file '.*missing.glb' does not exist"),
    (lambda d: _garbage(d, "bad.glb", b"\x00\x01 not a glb"), r"crate: field 'path': cannot read"),
    (lambda d: _garbage(d, "bad.obj", b"hello\nworld\n"), r"crate: field 'path': .*no triangles"),
    (lambda d: _garbage(d, "bad.txt", b"v 0 0 0"), r"crate: field 'path': .* not a mesh file"),
    (lambda d: _garbage(d, "dot.obj", b"v 0 0 0\nv 0.001 0 0\nv 0 0.001 0\nf 1 2 3\n"),
     r"crate: field 'path': .*smaller than 1 cm"),
    (lambda d: _garbage(d, "line.obj", b"v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n"),
     r"crate: field 'path': .*has no bounding box \(all on a line\?\): QH"),
])
def test_bad_mesh_files_are_refused_and_nothing_is_added(tmp_path, make, message):
    world = twig.World()
    with pytest.raises(AssetError, match=message):
        world.add_box_model("crate", position=(0.0, 0.0, 0.0), path=make(tmp_path))
    assert world.n_nodes == 0 and world.n_links == 0 and len(world.volumes) == 0
    assert world.bodies == []


def test_scene_paths_are_relative_to_the_scene_file_and_errors_name_the_field(tmp_path):
    (tmp_path / "meshes").mkdir()
    _write_box(tmp_path / "meshes" / "crate.glb")
    scene = tmp_path / "room.toml"
    scene.write_text('[[object]]\ntype = "box_model"\nname = "crate"\nposition = [0, 0, 0]\n'
                     'path = "meshes/crate.glb"\n')
    world = twig.load_scene(scene)
    assert world.body("crate").type == "box_model"
    scene.write_text(scene.read_text().replace("crate.glb", "nope.glb"))
    with pytest.raises(SceneError, match=r"room.toml: \[\[object\]\] #1 \(box_model 'crate'\): "
                                         r"crate: field 'path': mesh file .*nope.glb"):
        twig.load_scene(scene)
