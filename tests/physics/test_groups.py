"""The world's model, state and control (twig.physics.groups): every column in one group, the
snapshot copying the state and control, the tick never writing the model."""

import numpy as np
import pytest

import twig
from twig.motor.state import MOTOR_COLUMNS
from twig.physics.columns import CONTROL, GROUPS, MODEL, STATE, Column
from twig.physics.groups import TABLES
from twig.physics.tables import DEFAULT_DAMP_AIR
from twig.scenes.loader import load_scene


def _world() -> twig.World:
    world = twig.World(seed=0)
    world.add_humanoid("a", (0.0, 0.0, 0.0)).walk_to((2.0, 0.0, 0.0))
    world.add_block("box", (1.0, 0.5, 1.0))
    world.add_ball("ball", (0.0, 1.0, 1.0))
    return world


def _model(world: twig.World) -> dict[str, dict[str, np.ndarray]]:
    return {name: {k: v.copy() for k, v in group.items()}
            for name, group in world.model.groups().items()}


def test_every_column_belongs_to_one_group():
    world = _world()
    for name, table in world.tables().items():
        parts = [getattr(part, name).names for part in (world.model, world.state, world.control)]
        assert sorted(sum(parts, ())) == sorted(table.spec), name
    assert {col.group for col in MOTOR_COLUMNS.values()} == set(GROUPS)
    assert set(world.tables()) == set(TABLES)
    assert world.state.nodes.names[:2] == ("pos", "prev")
    assert "acc" in world.control.nodes and "inv_mass" in world.model.nodes
    with pytest.raises(KeyError, match=r"nodes\['pos'\] is a state column, not model"):
        world.model.nodes["pos"]
    with pytest.raises(ValueError, match="group"):
        Column(np.float64, (), 0.0, "scratch")


def test_the_model_is_read_only_and_the_state_and_control_live():
    world = _world()
    world.step()
    assert not world.model.nodes["inv_mass"].flags.writeable
    assert not world.model.links["min"].flags.writeable
    assert np.shares_memory(world.model.nodes["inv_mass"], world.nodes["inv_mass"])
    assert world.state.nodes["pos"] is world.node_pos
    assert world.control.nodes["acc"] is world.nodes["acc"]
    assert world.state.tick == world.tick == 1 and world.state.rng is world.rng


def test_only_the_worlds_methods_write_the_model():
    """A model column is read-only to everyone (a write would escape the snapshots' model
    stamps); the world's set methods change it through ``Columns.edit``, taking a new stamp."""
    world = twig.World(seed=0)
    stick = world.add_stick("stick", (0.0, 1.0, 0.0))
    with pytest.raises(ValueError, match="read-only"):
        world.nodes["inv_mass"][0] = 2.0
    with pytest.raises(ValueError, match="read-only"):
        world.link_min[0] = 0.5
    stamp = world.nodes.model_stamp
    world.set_damping(stick.nodes, ground=0.3)
    assert world.nodes.model_stamp is not stamp and world.nodes["damp_ground"].tolist() == [0.3] * 2
    world.node_pos[0] = (0.0, 2.0, 0.0)  # state: anyone may write it
    world.nodes["acc"][1] = (1.0, 0.0, 0.0)  # control: likewise


def test_a_snapshot_copies_every_state_and_control_column():
    """... and a restore puts every column back bit for bit, the model too after a body was
    spawned."""
    world = _world()
    world.step(30)
    snap = world.snapshot()
    for name, table in world.tables().items():
        changing = set(table.names(STATE) + table.names(CONTROL))
        assert set(snap.physics.columns[name]) == changing, name
        stamp, model = snap.physics.model.tables[name]
        assert set(model) == set(table.names(MODEL)) and stamp is table.model_stamp
    before = {name: table.copy() for name, table in world.tables().items()}
    world.step(60)
    world.add_doll("doll", (3.0, 0.0, 0.0))
    world.step(5)
    world.restore(snap)
    for name, table in world.tables().items():
        for column, values in table.copy().items():
            assert np.array_equal(values, before[name][column], equal_nan=True), (name, column)


def test_snapshots_of_an_unchanged_model_share_its_copy():
    """Snapshots share each table's model copy while that table's model is unchanged; a
    restore puts the state back in place (views of it stay valid) and a changed model back."""
    world = twig.World(seed=0)
    stick = world.add_stick("stick", (0.0, 1.0, 0.0))
    world.step(10)
    first, second = world.snapshot(), world.snapshot()
    assert first.physics.model.tables["nodes"][1] is second.physics.model.tables["nodes"][1]
    pos = world.node_pos
    world.step(20)
    world.restore(first)
    assert world.node_pos is pos and world.tick == 10
    row = world.link_rows(world.links["id"])
    world.set_link_rest(row, 0.5)
    world.set_damping(stick.nodes, air=0.2)
    third = world.snapshot()
    tables, old = third.physics.model.tables, first.physics.model.tables
    assert tables["links"][1] is not old["links"][1] and tables["hinges"][1] is old["hinges"][1]
    world.add_ball("ball", (2.0, 1.0, 0.0))
    world.restore(first)
    assert world.link_max.tolist() == [1.0] and world.n_nodes == 2
    assert world.model.nodes["damp_air"].tolist() == [DEFAULT_DAMP_AIR] * 2
    world.restore(third)
    assert world.link_max.tolist() == [0.5] and world.model.nodes["damp_air"].tolist() == [0.2] * 2


@pytest.mark.parametrize("scene", ["walk", "hug"])
def test_the_tick_never_writes_the_model(scene):
    """Bit for bit, over 300 ticks of a scene with characters: the physics stage leaves every
    model column as it was, and a whole tick changes a table's model only through the world's
    methods (which replace the table's model stamp)."""
    world = load_scene(scene, seed=0)
    before: dict = {}
    written: list[str] = []

    def ahead() -> None:
        before["model"] = _model(world)

    def after() -> None:
        for name, columns in _model(world).items():
            for column, values in columns.items():
                if not np.array_equal(values, before["model"][name][column], equal_nan=True):
                    written.append(f"{name}[{column!r}] at tick {world.tick}")

    world.stages.add("hybrid", ahead)
    world.stages.add("record", after)
    stamps = {name: table.model_stamp for name, table in world.tables().items()}
    start = _model(world)
    for _ in range(300):
        world.step()
        model = _model(world)
        for name, table in world.tables().items():
            if table.model_stamp is stamps[name]:
                for column, values in model[name].items():
                    assert np.array_equal(values, start[name][column], equal_nan=True), (
                        f"{name}[{column!r}] changed without a model edit at tick {world.tick}")
            stamps[name], start[name] = table.model_stamp, model[name]
    assert not written


def test_the_motor_table_is_snapshot_as_the_physics_tables_are():
    """The layers' tables (the motor's) are captured by group too: state and control copied,
    the model shared while unchanged, and put back in place."""
    world = _world()
    world.step(10)
    table = world.motor.table

    def captured(snap):
        return next(state for obj, state in snap.objects if obj is table)

    (stamp, model), changing = captured(world.snapshot())
    assert stamp is table.model_stamp and set(model) == set(table.names(MODEL))
    assert set(changing) == set(table.names(STATE) + table.names(CONTROL))
    snap = world.snapshot()
    assert captured(snap)[0][1] is model
    heading = table["heading"]
    world.step(30)
    world.restore(snap)
    assert table["heading"] is heading and np.array_equal(heading, captured(snap)[1]["heading"])
