"""The built-in ``props`` scene and scene files with the prop types (issue #4)."""

import numpy as np
import pytest

import twig
from twig.errors import SceneError
from twig.scenes.objects import _OBJECT_TYPES

NEW_TYPES = {"doll", "merry_go_round", "chair", "table", "clipboard", "pen", "box_model"}


def test_every_type_of_the_issue_can_be_written_in_a_scene_file():
    assert {"humanoid", "ball", "weight", "rope", "cloth"} | NEW_TYPES <= set(_OBJECT_TYPES)


def test_the_props_scene_uses_every_new_type_and_settles_as_set_up():
    world = twig.load_scene("props")
    assert {body.type for body in world.bodies} >= NEW_TYPES
    mgr = world.body("merry_go_round")
    axle = world.node_pos[[mgr.node("foot"), mgr.node("hub")]].copy()
    world.run(seconds=3.0)
    np.testing.assert_array_equal(world.node_pos[[mgr.node("foot"), mgr.node("hub")]], axle)
    top = world.atlas("table")["top"]
    for name in ("clipboard", "pen"):  # lying on the table
        local = top.from_world(world.node_pos[world.body(name).nodes])
        assert local[:, 1].min() > -0.01 and local[:, 1].max() < 0.08, name
        assert (np.abs(local[:, 0]) < 0.6).all() and (np.abs(local[:, 2]) < 0.4).all(), name
    seat = world.atlas("chair")["seat"]
    doll = seat.from_world(world.body("doll").node_position("pelvis"))
    assert 0.0 < doll[1] < 0.1 and abs(doll[0]) < 0.225 and abs(doll[2]) < 0.225  # sits on it
    bench = world.atlas("bench")["top"]  # the mesh's box, on the ground, 45 cm high
    assert bench.origin[1] == pytest.approx(0.45, abs=2e-3)
    assert bench.normal[1] == pytest.approx(1.0, abs=1e-4)
    for body in world.bodies:
        assert body.link_errors().max(initial=0.0) < 0.1, body.name


def _scene(tmp_path, text):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, expected", [
    ('[[object]]\ntype = "carousel"\nname = "m"',
     r"#1 \('m'\): field 'type': unknown type 'carousel'"),
    ('[[object]]\ntype = "chair"\nname = "c"\nposition = [0, 0, 0]\nseat_height = "high"',
     r"#1 \(chair\): field 'seat_height': expected a number"),
    ('[[object]]\ntype = "table"\nname = "t"\nposition = [0, 0, 0]\nlegs = 3',
     r"#1 \(table\): unknown field 'legs'"),
    ('[[object]]\ntype = "box_model"\nname = "b"\nposition = [0, 0, 0]',
     r"#1 \(box_model\): missing field 'path'"),
    ('[[object]]\ntype = "box_model"\nname = "b"\nposition = [0, 0, 0]\npath = 3',
     r"#1 \(box_model\): field 'path': expected a file path"),
    ('[[object]]\ntype = "box_model"\nname = "b"\nposition = [0, 0, 0]\npath = "no.glb"',
     r"#1 \(box_model 'b'\): b: field 'path': mesh file '.*no.glb' does not exist"),
    ('[[object]]\ntype = "merry_go_round"\nname = "m"\nradius = -1.0',
     r"#1 \(merry_go_round 'm'\): m: radius: expected a positive"),
    ('[[object]]\ntype = "doll"\nname = "d"\nheight = 0', r"#1 \(doll 'd'\): d: height"),
    ('[[object]]\ntype = "pen"\nname = "p"\nposition = [0, 1, 0]\ndirection = [0, 0, 0]',
     r"#1 \(pen 'p'\): p: direction must be non-zero"),
])
def test_bad_prop_objects_name_file_table_and_field(tmp_path, text, expected):
    with pytest.raises(SceneError, match=expected) as err:
        twig.load_scene(_scene(tmp_path, text))
    assert "bad.toml" in str(err.value)


def test_the_props_scene_is_deterministic_and_restores_bit_for_bit():
    first, second = twig.load_scene("props"), twig.load_scene("props")
    first.run(seconds=1.0)
    snap = first.snapshot()
    first.run(seconds=1.0)
    second.run(seconds=2.0)
    assert first.state_hash() == second.state_hash()
    expected = first.state_hash()
    first.restore(snap)
    first.run(seconds=1.0)
    assert first.state_hash() == expected
    assert set(first.atlas("clipboard")) == {"front"}
