"""Commands are transactions (a failing one leaves the future as if it was never sent), and
removal is safe (any body of any built-in scene can go mid-run and the world steps on)."""

from __future__ import annotations

import pytest

from twig.scenes.loader import list_scenes, load_scene
from twig.script.session import Reply, Session
from twig.script.syntax import parse_line

FAILING = {
    "bad spawn": "world: spawn ball x position=(0, 1, 0) mass=-1",
    "bad spawn field": 'world: spawn humanoid z position=(0, 0, 3) behaviors="fly"',
    "bad argument": "{who}: walk-to (1, 0, 0) pace=2",
    "unknown object": "nobody: walk-to (1, 0, 0)",
    "unknown command": "{who}: fly",
}
"""One failing command of each kind; ``who`` is a character of the scene."""


def _hashes(world, ticks: int) -> list[str]:
    out = []
    for _ in range(ticks):
        world.step()
        out.append(world.state_hash())
    return out


@pytest.mark.parametrize("scene,who", [("walk", "walker"), ("hug", "kid"),
                                       ("playground", "kid"), ("office", "boss")])
def test_a_failing_command_changes_nothing(scene, who):
    untouched = load_scene(scene)
    untouched.step(150)
    expected = _hashes(untouched, 240)
    world = load_scene(scene)
    world.step(150)
    replies: list[Reply] = []
    session = Session(world, replies.append)
    for kind, line in FAILING.items():
        session.run(parse_line(line.format(who=who)), kind)
    assert [r.kind for r in replies] == ["error"] * len(FAILING), replies
    assert _hashes(world, 240) == expected


def test_the_spawn_rolled_back_had_changed_the_world():
    """The spawn with bad behaviours fails after the humanoid's 16 nodes were added, so the
    roll-back is what keeps the world as it was (nodes, and the walker's running actions)."""
    world = load_scene("walk")
    world.step(150)
    nodes, running = world.n_nodes, world.body("walker").actions
    replies: list[Reply] = []
    Session(world, replies.append).run(parse_line(FAILING["bad spawn field"]))
    assert replies[0].kind == "error"
    assert world.n_nodes == nodes and world.body("walker").actions == running
    assert running, "the walker should be walking at 2.5 s"


REMOVALS = [(s.name, b.name) for s in list_scenes() for b in load_scene(s.name).bodies]


@pytest.mark.parametrize("scene", sorted({s for s, _ in REMOVALS}))
def test_removing_any_body_mid_run_lets_the_world_step_on(scene):
    """Remove each body 2 s into the scene, then step 2 s: no exception, and whatever
    referred to it let go (a ``removed`` event; actions on it end)."""
    world = load_scene(scene)
    world.step(120)
    snap = world.snapshot()
    for name in [b.name for b in world.bodies]:
        world.restore(snap)
        events = []
        sub = world.events.subscribe(events.append, types=("removed", "action", "release"))
        world.remove_body(name)
        world.step(120)
        sub.cancel()
        assert any(e["type"] == "removed" and e["object"] == name for e in events)
        assert all(c.name != name for c in world.characters)
