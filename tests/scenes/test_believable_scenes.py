"""Issue #33's artefacts, each in the scene where it was seen: objects that leapt into hands
(office), a stand-up that popped, a kick that did not knock the partner over (kick)."""

import numpy as np

import twig
from twig.batch.check import check_jobs
from twig.batch.job import run_job
from twig.batch.metrics import plant_slides


def speeds(recording, bodies):
    """Largest tick-to-tick speed (m/s) of any node of each of ``bodies``."""
    a = recording.arrays()
    out = {}
    for body in bodies:
        cols = np.flatnonzero(a["node_body"] == body)
        step = np.linalg.norm(np.diff(a["pos"][:, cols], axis=0), axis=2)
        out[body] = float(step.max()) / recording.dt
    return out


def test_office_props_are_carried_into_the_hands_not_teleported():
    world = twig.load_scene("office")
    recording = world.record()
    grabs = []
    world.events.subscribe(grabs.append, ("grab",))
    world.run(1.5)
    assert sorted(e["object"] for e in grabs) == ["clipboard", "papers", "pen"]
    fastest = speeds(recording, ("clipboard", "papers", "pen"))
    assert max(fastest.values()) < 6.0, fastest   # they were 22-26 m/s: one-tick jumps
    # ...and they do get where they are used: the clipboard before the boss's chest.
    boss, board = world.body("boss"), world.body("clipboard")
    assert np.linalg.norm(board.centroid - boss.node_position("chest")) < 0.45


def test_the_kick_knocks_the_partner_down_with_pain():
    row = run_job(check_jobs(["kick"], [0], 4.0)[0]).row
    assert row["status"] == "ok", row.get("error")
    falls = row["check"]["falls"]
    assert [(f["agent"], f["pain"]) for f in falls] == [("partner", True)]


def test_standing_up_from_the_ground_or_a_chair_does_not_pop():
    for seat in (None, "chair"):
        world = twig.World(seed=0)
        chair = world.add_chair("chair", position=(0, 0, 1.0), facing=3.14159) if seat else None
        kid = world.add_humanoid("kid")
        assert kid.sit(chair) is not None
        world.run(3.0)
        recording = world.record()
        up = kid.stand_up()
        world.run(2.5)
        assert up.status == "succeeded", up.reason
        a = recording.arrays()
        pelvis = a["pos"][:, list(a["node_name"]).index("kid/pelvis")]
        speed = np.linalg.norm(pelvis[2:] - pelvis[:-2], axis=1) / (2 * recording.dt)
        assert speed.max() < 1.5, (seat, speed.max())   # it rose at 1.6-3.0 m/s
        assert pelvis[-1, 1] - pelvis[0, 1] > 0.25          # and it did rise


def test_walking_feet_do_not_slide_when_they_land():
    world = twig.load_scene("walk")
    recording = world.record()
    world.run(8.0)
    a = recording.arrays()
    walker = world.body("walker")
    slides = np.concatenate([
        plant_slides(a["pos"][:, list(a["node_name"]).index(f"walker/{foot}")],
                     float(world.nodes["radius"][walker.node(foot)]), recording.dt, None)
        for foot in ("l_foot", "r_foot")])
    assert len(slides) > 8
    # A step's last tick jumped to where the hip had gone since: 1.0-1.3 cm a plant.
    assert slides.mean() < 0.003, slides
