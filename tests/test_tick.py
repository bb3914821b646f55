"""The explicit tick: named stages in one documented order, each timed into the profile."""

from __future__ import annotations

import pytest

import twig
from twig.errors import PhysicsError
from twig.physics.stages import STAGES
from twig.scenes.loader import load_scene
from twig.script.interpreter import Interpreter
from twig.script.syntax import parse_script


def test_the_stages_run_in_the_documented_order():
    assert STAGES == ("sense", "decide", "script", "commands", "act", "hybrid", "physics",
                      "record")
    world = load_scene("playground")
    ran: list[str] = []
    # Registered in reverse order: the order of the tick must not depend on it.
    for stage in reversed([s for s in STAGES if s != "physics"]):
        world.stages.add(stage, lambda stage=stage: ran.append(stage))
    tick = world.tick
    world.stages.add("record", lambda: ran.append(f"tick {world.tick - tick}"))
    world.step()
    physics_at = STAGES.index("physics")
    assert ran == [*STAGES[:physics_at], *STAGES[physics_at + 1:], "tick 1"]


def test_systems_register_in_their_stage():
    world = load_scene("playground")
    hooks = world.stages.hooks
    assert hooks["sense"] == [world.behavior.sense]
    assert hooks["decide"] == [world.behavior.decide]
    assert hooks["act"] == [world.motor.act]
    with pytest.raises(PhysicsError, match="unknown tick stage"):
        world.stages.add("think", lambda: None)


def test_a_script_command_acts_in_the_tick_it_is_issued():
    """A line run at tick n moves the character in tick n's physics: the same state as the
    command given between ticks n-1 and n."""
    scripted, direct = twig.World(seed=0), twig.World(seed=0)
    for world in (scripted, direct):
        world.add_humanoid("a")
        world.step(30)
    Interpreter(scripted, parse_script("a: walk-to (2, 0, 1)"))
    direct.body("a").walk_to((2.0, 0.0, 1.0))
    for _ in range(3):
        scripted.step()
        direct.step()
        assert scripted.state_hash() == direct.state_hash()


def test_a_scene_scripts_first_line_acts_at_tick_0():
    """A scene's own script starts with the scene: its first line (``walker: walk-to (3, 0,
    0)``) moves the walker in tick 0's physics, as the command given before the first step."""
    scripted = load_scene("walk")
    direct = load_scene("walk", edit=lambda tables: tables["scene"].pop("script"))
    assert scripted.tick == direct.tick == 0
    direct.body("walker").walk_to((3.0, 0.0, 0.0))
    for _ in range(3):
        scripted.step()
        direct.step()
        assert scripted.state_hash() == direct.state_hash()
    assert scripted.script.next == 1 and not scripted.script.done


def test_the_profile_times_each_stage():
    world = load_scene("playground")
    world.step(5)
    profile = world.profile
    for stage in ("sense", "decide", "act", "physics", "step"):
        assert profile.last[stage] > 0.0
    assert profile.last["hybrid"] == 0.0  # nothing registered there
    assert profile.ticks == 5
    assert profile.total["step"] >= sum(profile.total[s] for s in STAGES) > 0.0
    profile.reset()
    assert profile.ticks == 0 and profile.mean_ms("act") == 0.0
