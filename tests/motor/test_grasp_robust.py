"""Grasps that arrive (#32): a hand reaching for a grip node stoops until the node is within
its reach and takes hold when it gets there, also when the node lies under the object's skin,
so a scene's script works whatever tick it starts at."""

import pytest

import twig
from twig.scenes.loader import scene_path
from twig.script.interpreter import Interpreter
from twig.script.syntax import read_script


def _office_without_script():
    return twig.load_scene("office", edit=lambda tables: tables["scene"].pop("script"))


@pytest.mark.parametrize("start", [0, 1, 6, 13, 37])
def test_the_office_script_finishes_from_any_start_tick(start):
    # The grasps were fragile: from tick 0 the boss's hand shoved the clipboard off the desk
    # (it stopped 5.7 cm from a grip node 2 cm under the board's skin, 5 cm being the hold
    # distance), from tick 6 its stoop over the pen see-sawed short of it.
    world = _office_without_script()
    world.step(start)
    script = Interpreter(world, read_script(scene_path("office").parent / "scripts/office.twig"))
    assert script.run(12.0) == "finished", script.reason
    for name in ("clipboard", "pen"):
        assert world.body("boss").gripped("left" if name == "clipboard" else "right") == name


def test_a_grip_out_of_reach_fails_saying_so():
    world = twig.World(seed=0)
    boss = world.add_humanoid("boss")
    world.add_table("desk", position=(0.0, 0.0, 1.6))
    board = world.add_clipboard("board", position=(0.0, 0.8, 1.6))
    act = boss.hold_for_use(board, hand="left")
    world.run(5.0)
    assert act.status == "failed"
    assert "could not take hold of board in 4 s: out of reach" in act.reason, act.reason
    assert boss.upright

