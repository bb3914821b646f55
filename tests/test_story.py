"""The story ``twig run`` tells: a short timeline from the world's events, then the table."""

import re

import numpy as np

import twig
from twig.behavior import add_behaviors
from twig.cli import main
from twig.story import MAX_LINES, Story


def told(lines: list[str]) -> list[tuple[float, str]]:
    out = []
    for line in lines:
        match = re.match(r"\s*(\d+\.\d\d) s  (.*)", line)
        assert match, line
        out.append((float(match.group(1)), match.group(2)))
    return out


def test_the_playground_story_tells_the_pain_withdrawal_and_the_hug():
    world = twig.load_scene("playground", seed=0)
    with Story(world) as story:
        world.run(seconds=3)
        # a 6 kg ball thrown at the kid's chest: a collision that hurts, whatever the tuning
        chest = world.body("kid").node_position("chest")
        rock = world.add_ball("rock", chest + np.array((0.4, 0.0, 0.0)), radius=0.15, mass=6.0)
        world.set_velocity(rock.nodes, (-9.0, 0.0, 0.0))
        # the kid runs to its parent some time later (seed 0: about 18 s), the hug ends later
        for _ in range(18):
            world.run(seconds=5)
            if any("lets go of parent" in line or ("hug" in line and "fail" in line)
                   for line in story.lines()):
                break
    events = told(story.lines())
    assert len(events) <= MAX_LINES
    assert events[0][0] == 0.0 and "kid play-ball" in events[0][1]
    # the story tells the collision that hurt, with the withdrawal it caused
    hurt = [t for t, text in events if re.fullmatch(
        r"kid hurt by rock \(\d+\.\d J\): pain-withdrawal for \d+\.\d s", text)]
    assert hurt and 3.0 <= hurt[0] < 3.2, events
    switches = [t for t, text in events if text.startswith("kid: hug-parent")]
    assert switches                            # the kid runs to its parent...
    hugs = [(t, text) for t, text in events if t > switches[0] and (
        text in ("kid hugs parent", "kid's hug of parent ends before their arms met")
        or text.startswith("kid's hug failed"))]
    assert hugs, events                        # ...and how that hug went is told
    if hugs[0][1] == "kid hugs parent":        # joined: its end is told too
        assert any(text.startswith("kid lets go of parent after") for _, text in events)
    assert not any("replaced by" in text for _, text in events)   # superseded, not failed
    times = [t for t, _ in events]
    assert times == sorted(times)


def test_merges_and_leaves_out_what_is_not_worth_telling():
    world = twig.World()
    bus = world.events
    with Story(world) as story:
        bus.emit("focus", agent="kid", object="ball")
        bus.emit("behavior", agent="kid", behavior="play-ball", level="goals")
        bus.emit("behavior", agent="kid", behavior="approach", level="motor")
        world.step(60)
        bus.emit("focus", agent="kid", object="bird")         # a glance: not told
        bus.emit("release", agent="kid", object="doll", hand="left")
        bus.emit("grab", agent="kid", object="doll", hand="left")   # a re-grip: not told
        bus.emit("action", agent="kid", name="kick", status="failed",
                 reason="replaced by walk")                    # superseded: not told
        world.step(30)
        bus.emit("focus", agent="kid", object="ball")
        for _ in range(3):
            bus.emit("action", agent="kid", name="reach", status="failed",
                     reason="out of reach")
        bus.emit("contact", a="kid", b="ball", energy=3.0)     # contacts: not even heard
        world.step(300)
    assert story.lines() == [
        "   0.00 s  kid play-ball (focus ball)",
        "   1.50 s  kid's reach failed (3 times): out of reach",
    ]


def test_long_stories_are_cut_and_counted():
    world = twig.World()
    with Story(world, max_lines=5) as story:
        for k in range(9):
            world.events.emit("grab", agent="kid", object=f"ball{k}", hand="left")
    lines = story.lines()
    assert len(lines) == 5 and lines[-1].startswith("  ... and 5 more")


def test_twig_run_prints_the_timeline_then_the_table_and_quiet_only_the_table(capsys):
    assert main(["run", "hug", "--seconds", "6"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^\s+\d+\.\d\d s  kid hugs parent$", out, re.M), out
    assert out.index(" s  kid hugs parent") < out.index("centroid")
    assert re.search(r"ms/tick \(\d+x real time\)", out)
    assert main(["run", "hug", "--seconds", "6", "--quiet"]) == 0
    quiet = capsys.readouterr().out
    assert "kid hugs parent" not in quiet and "centroid" in quiet


def test_a_command_to_an_autonomous_character_says_its_behaviours_took_over():
    world = twig.World(seed=0)
    world.add_humanoid("parent", position=(0, 0, 4))
    kid = world.add_humanoid("kid", position=(0, 0, 0), preset="child")
    world.add_ball("ball", position=(2, 0.15, 2))
    add_behaviors(kid, {"play-ball": {"ball": "ball"}})
    world.step()
    walk = kid.walk_to((-3, 0, -3))
    world.run(seconds=3)
    assert walk.status == "failed"
    assert "from kid's own behaviours (kid is autonomous" in walk.reason
