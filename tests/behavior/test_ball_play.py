"""Children at one ball: they take turns kicking it, a ball they cannot stand behind (at the
parent's feet) is kicked from where they can get to, and the rival's blows in a fight over it
do not knock the kid and the doll it carries about. Each fails on the code before: at
playground seed 6 the kid started a kick during kid2's, ran into kid2 on its kicking leg and
shoved it over (t = 80.6 s); a ball at the parent's feet was circled and never kicked; an
immovable fist at 8 m/s knocked a child at up to its speed, and the doll flew."""

import textwrap

import numpy as np

import twig


def kicks(world):
    """(agent, start, end) of every kick, filled in as the world runs (end inf while under
    way)."""
    out = []

    def note(e):
        if e["type"] != "action" or e.get("name") != "kick":
            return
        if e["status"] == "start":
            out.append([e["agent"], e["t"], np.inf])
        else:
            for k in out:
                if k[0] == e["agent"] and k[2] == np.inf:
                    k[2] = e["t"]

    world.events.subscribe(note)
    return out


def test_children_take_turns_at_the_ball():
    world = twig.load_scene("playground", seed=6)
    seen = kicks(world)
    kid2 = world.body("kid2")
    standing = kid2.node_position("head")[1]
    lowest = 1.0
    for _ in range(82 * 4):
        world.run(0.25)
        lowest = min(lowest, kid2.node_position("head")[1] / standing)
    assert len({a for a, _, _ in seen}) == 2  # both children kicked
    for agent, start, _ in seen:
        assert not any(b != agent and s < start < e for b, s, e in seen), (agent, start, seen)
    assert lowest > 0.6  # kid2 stayed on its feet (it fell at 80.6 s when shoved)


SCENE = textwrap.dedent("""
    [scene]
    description = "a ball at the parent's feet"
    seconds = 12
    [world]
    seed = 0
    [[object]]
    type = "humanoid"
    name = "parent"
    position = [0.0, 0.0, 0.0]
    [[object]]
    type = "humanoid"
    name = "kid"
    position = [2.5, 0.0, 1.0]
    preset = "child"
    [object.behaviors]
    play-ball = { ball = "ball", centre = [0.0, 4.0], area = 3.0 }
    [[object]]
    type = "ball"
    name = "ball"
    position = [0.2, 0.11, -0.15]
""")


def test_a_ball_at_the_parents_feet_is_kicked_from_where_the_child_can_stand(tmp_path):
    path = tmp_path / "feet.toml"
    path.write_text(SCENE)
    world = twig.load_scene(str(path))
    seen = kicks(world)
    world.run(12.0)
    assert seen and seen[0][2] < 12.0  # a kick done (none in 20 s before)
    ball = world.body("ball").centroid
    assert np.hypot(ball[0], ball[2]) > 1.0  # away from the parent's feet


FIGHT = textwrap.dedent("""
    [scene]
    description = "kid2 grapples the kid, who carries its doll"
    seconds = 10
    [world]
    seed = 0
    [[object]]
    type = "humanoid"
    name = "kid"
    position = [0.0, 0.0, 0.0]
    preset = "child"
    [object.behaviors]
    carry = { object = "doll", hand = "left" }
    [[object]]
    type = "humanoid"
    name = "kid2"
    position = [1.5, 0.0, 0.0]
    preset = "child"
    facing = -1.57
    [[object]]
    type = "doll"
    name = "doll"
    position = [0.25, 0.0, 0.25]
    lying = true
""")


def test_blows_hurt_without_knocking_the_child_and_its_doll_about(tmp_path):
    path = tmp_path / "fight.toml"
    path.write_text(FIGHT)
    world = twig.load_scene(str(path))
    world.run(4.0)
    kid, doll = world.body("kid"), world.body("doll")
    assert kid.gripped("left") == "doll"
    world.body("kid2").grapple("kid", seconds=3.0)
    trunk = [kid.node(n) for n in ("pelvis", "chest", "neck")]
    dolls = np.arange(doll.nodes.start, doll.nodes.stop)
    fastest_trunk = fastest_doll = 0.0
    for _ in range(6 * 60):
        world.step()
        speed = np.linalg.norm(world.node_pos - world.node_prev, axis=1) / world.dt
        fastest_trunk = max(fastest_trunk, float(speed[trunk].max()))
        fastest_doll = max(fastest_doll, float(speed[dolls].max()))
    assert sum(e.body == "kid" and e.source == "kid2" for e in world.pain_events) >= 2
    # Fists at 8 m/s, immovable, knocked the kid's trunk at 5.8 m/s and the doll at 5.7.
    assert fastest_trunk < 4.8
    assert fastest_doll < 4.5
