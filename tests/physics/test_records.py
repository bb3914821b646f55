"""The tick's records (twig.physics.records): each field is the world's array or setting of
that name, so a kernel unpacking a record in its fields' order gets what it names."""

import numpy as np

import twig
from twig.motor.state import MotorNodes, MotorRows
from twig.physics.records import (
    RECORDS,
    ArraysStruct,
    Collision,
    Constraints,
    Nodes,
    Settings,
    Volumes,
    pack,
)
from twig.physics.tick import array_args, array_records, physics_tick, setting_args


def _world(box: bool) -> twig.World:
    world = twig.World(seed=0)
    world.add_humanoid("a", (0.0, 0.0, 0.0))
    if box:
        world.add_block("box", (1.0, 0.5, 0.0))
    world.step()
    return world


def test_the_records_are_the_worlds_arrays_by_name():
    world = _world(box=True)
    records = array_records(world)
    assert len(records) + 1 == len(RECORDS)
    for record, values in zip(RECORDS, records, strict=False):
        assert len(values) == len(record._fields)
    nodes, volumes = Nodes(*records[0]), Volumes(*records[2])
    for name in Nodes._fields:
        assert _same(nodes._asdict()[name], world.nodes[name])
    for name in Volumes._fields:
        assert _same(volumes._asdict()[name], world.volumes[name])
    collision = Collision(*records[3])
    assert collision.still is world.body_state["still"]
    assert np.array_equal(collision.boxes, np.flatnonzero(world.volumes["kind"] == 1))
    assert Collision(*array_records(_world(box=False)).collision).boxes is None


def _same(field: np.ndarray, column: np.ndarray) -> bool:
    """Whether a record's field is the world's column: the array itself, or a view of all of
    it (a read-only one: see the next test)."""
    return field is column or (field.ctypes.data == column.ctypes.data
                               and field.shape == column.shape
                               and field.strides == column.strides)


def test_the_tick_gets_the_model_read_only_and_the_state_writable():
    """The model's columns (masses, damping, radii, volumes: declared so in the tables) and
    the fields the tick only reads (``records.ReadOnly``: the constraints in solver order, the
    topology's arrays, set-point targets) reach the kernel as read-only views, so a kernel
    writing one does not compile; the state it changes (positions, flags, spin, sleep and
    pain) is writable."""
    world = _world(box=True)
    records = array_records(world)
    nodes, constraints = Nodes(*records.nodes), Constraints(*records.constraints)
    volumes, collision = Volumes(*records.volumes), Collision(*records.collision)
    for field in (nodes.inv_mass, nodes.damp_air, nodes.radius, nodes.move_target,
                  constraints.link_min, constraints.plane_normal, constraints.hinge_nodes,
                  constraints.angle_cos, volumes.nodes, volumes.coef, volumes.friction,
                  collision.node_row, collision.boxes, collision.pain_threshold):
        assert not field.flags.writeable
    for field in (nodes.pos, nodes.prev, nodes.flags, nodes.lock_pos, volumes.spin,
                  collision.still, collision.pain, collision.box_c):
        assert field.flags.writeable
    assert not world.nodes["inv_mass"].flags.writeable  # the world's methods edit the model
    assert all(not isinstance(v, np.ndarray) or v.flags.writeable for v in records.pairs)


def test_the_kernel_takes_the_records_in_one_structure_of_the_same_arrays():
    """The tick kernel gets the records of arrays as one object (typed and unboxed once a
    call, not once an array); its arrays are the world's, not copies: a tick through it moves
    the world's nodes as a tick of the world does."""
    world, twin = _world(box=True), _world(box=True)
    arrays = array_args(world, announce=False)
    assert isinstance(arrays, ArraysStruct)
    physics_tick(arrays, setting_args(world))
    twin._physics_tick()
    assert np.array_equal(world.node_pos, twin.node_pos)
    assert not np.array_equal(world.node_pos, world.node_prev)


def test_the_settings_are_in_their_fields_order():
    """The settings record is built positionally every tick (a named tuple costs
    microseconds): each field must hold the setting it names."""
    world = _world(box=False)
    world.sleeping = True
    settings = Settings(*setting_args(world))
    assert settings.margin == world.broad_margin
    assert settings.lookahead == world.broad_lookahead
    assert settings.use_grid == world.broad_grid
    assert settings.sleep_ticks == round(world.sleep_seconds / world.dt) > 0
    assert settings.gravity is world.gravity
    assert settings.dt == world.dt
    assert settings.iterations == world.iterations


def test_the_motor_records_are_the_tables_columns():
    world = _world(box=False)
    rows = MotorRows(*pack(MotorRows, world.motor.table))
    assert rows.gaze_dir is world.motor.table["gaze_dir"]
    assert not rows.scale.flags.writeable  # the characters' build: model
    nodes = MotorNodes(*pack(MotorNodes, world.nodes))
    assert nodes.lock_pos is world.nodes["lock_pos"] and not nodes.inv_mass.flags.writeable
