"""The motor scenes of issue #5 run their scripts to the end and show what they promise."""

import numpy as np

import twig
from twig.bodies.charts import chart


def _run(name, watch=None):
    world = twig.load_scene(name)
    ticks = round(world.scene.seconds / world.dt)
    for _ in range(ticks):
        world.step()
        if watch is not None:
            watch(world)
        if world.script.status != "running":
            break
    return world


def test_walk_scene_goes_round_the_square():
    corners = {(3, 0), (3, 3), (0, 3)}
    visited = set()

    def watch(world):
        hips = world.body("walker").hips
        for c in corners:
            if np.hypot(hips[0] - c[0], hips[2] - c[1]) < 0.3:
                visited.add(c)

    world = _run("walk", watch)
    assert world.script.status == "finished", world.script.reason
    assert visited == corners and world.body("walker").upright


def test_hug_scene_joins_the_hands():
    phases = []
    world = twig.load_scene("hug")
    world.events.subscribe(lambda e: phases.append(e["status"]), types={"hug"})
    world.run(seconds=world.scene.seconds)      # the hug lasts on after the script's end
    assert world.script.status == "finished", world.script.reason
    assert phases == ["start", "joined", "end"]


def test_office_scene_pen_writes_on_the_clipboard():
    heights = []

    def watch(world):
        task = world.motor._tasks.get((world.body("boss").id, "right"))
        if getattr(task, "writing", False):
            front = chart(world.body("clipboard"), "front")
            heights.append(front.from_world(world.body("pen").node_position("tip"))[1])

    world = _run("office", watch)
    assert world.script.status == "finished", world.script.reason
    assert len(heights) > 60                      # a second or more of pen on paper
    assert np.abs(heights).max() < 0.01           # the tip stays within 1 cm of the surface
    assert world.body("boss").upright and world.body("clerk").upright


def test_drag_scene_hauls_a_character_and_its_clipboard():
    world = twig.load_scene("drag")
    start = world.body("dragged").hips.copy()
    clip = world.body("clipboard").centroid.copy()
    while world.script.status == "running" and world.time < world.scene.seconds:
        world.step()
    assert world.script.status == "finished", world.script.reason
    moved = np.linalg.norm((world.body("dragged").hips - start)[[0, 2]])
    assert moved > 2.0
    assert np.linalg.norm((world.body("clipboard").centroid - clip)[[0, 2]]) > 1.5
    assert world.body("dragger").upright
