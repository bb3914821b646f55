"""Malformed scene files give a SceneError naming the file, the table and the field."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import twig
from twig.errors import SceneError


def _scene(tmp_path, text):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return path


OK_STICK = '[[object]]\ntype = "stick"\nname = "s"\nposition = [0, 1, 0]\n'


@pytest.mark.parametrize("text, expected", [
    ("[world\nseed = 1", r"bad.toml: malformed TOML.*line 1"),
    ("[worlds]\nseed = 1", r"unknown table \[worlds\]"),
    ("[world]\nsede = 1", r"\[world\]: unknown field 'sede'"),
    ("[world]\nseed = 'one'", r"\[world\]: field 'seed': expected an integer"),
    ("[world]\niterations = 0", r"\[world\]: iterations must be a positive integer"),
    ("[[object]]\nname = 'x'", r"\[\[object\]\] #1: missing field 'type'"),
    ("[[object]]\ntype = 'dragon'\nname = 'x'", r"#1 \('x'\): field 'type': unknown type 'dragon'"),
    (OK_STICK + "lenght = 2", r"#1 \(stick\): unknown field 'lenght'"),
    (OK_STICK + "length = 'long'", r"#1 \(stick\): field 'length': expected a number"),
    ('[[object]]\ntype = "stick"\nname = "s"\nposition = [0, 1]',
     r"field 'position': expected a vector \[x, y, z\]"),
    (OK_STICK + "length = -1.0", r"#1 \(stick 's'\): s: length: expected a positive"),
    ('[[object]]\ntype = "stick"\nname = "s"', r"#1 \(stick\): missing field 'position'"),
    (OK_STICK + OK_STICK, r"#2 \(stick 's'\): a body called 's' already exists"),
    ("[scene]\nseconds = -2", r"\[scene\]: field 'seconds': expected a positive"),
    ("[world]\nbounds = { lower = [0, 0, 0] }", r"\[world.bounds\]: needs fields"),
])
def test_malformed_scene_names_file_table_and_field(tmp_path, text, expected):
    with pytest.raises(SceneError, match=expected) as err:
        twig.load_scene(_scene(tmp_path, text))
    assert "bad.toml" in str(err.value)


def test_unknown_scene_name_lists_the_builtin_ones():
    with pytest.raises(SceneError, match=r"unknown scene 'nope'.*tetra"):
        twig.load_scene("nope")


@given(st.text(max_size=200))
def test_arbitrary_text_never_crashes_the_loader(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "fuzz.toml"
    path.write_text(text)
    try:
        world = twig.load_scene(path)
    except SceneError:
        return
    assert world.n_nodes == 0
