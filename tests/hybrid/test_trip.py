"""The trip scene (DANCE Fig. 2): contact switches the walker to physics, the hands go out
before the torso lands, and the walker gets up and walks on by clip."""

import numpy as np

import twig
from twig.bodies.humanoid import NODE_NAMES
from twig.hybrid import supervisor
from twig.hybrid.controllers import tipping

HANDS = [NODE_NAMES.index("l_hand"), NODE_NAMES.index("r_hand")]
TORSO = [NODE_NAMES.index(n) for n in ("chest", "neck", "l_shoulder", "r_shoulder")]


def test_trip_falls_with_hands_out_and_returns_to_the_walk():
    world = twig.load_scene("trip")
    walker = world.body("walker")
    seen = []
    world.events.subscribe(lambda e: seen.append(e), types=["controller"])
    sup = supervisor(walker)
    hands, torso, who, poses = [], [], [], []
    for _ in range(round(world.scene.seconds / world.dt)):
        world.step()
        p = world.node_pos[walker.nodes]
        hands.append(p[HANDS, 1].min())
        torso.append(p[TORSO, 1].min())
        who.append(sup.active.name)
        poses.append(p.copy())
    chain = [(e["controller"], e["reason"]) for e in seen]
    # The ball is active to the walker: touching it hands the walk to dynamic tracking.
    assert chain[1] == ("tracking walk", "contact with ball")
    # Falling, the reflex puts the hands out: they reach the ground before the torso lands.
    assert ("reflex fall", "tracking walk failed") in chain
    fall = who.index("reflex fall")
    landed = fall + int(np.argmax(np.array(torso[fall:]) < 0.2))
    assert torso[landed] < 0.2
    # A hand on the ground ahead of its shoulder, the way the body falls, before the torso
    # lands (a limp fall trails its arms behind the shoulders instead).
    way = tipping(poses[fall])
    touch = fall + int(np.argmax(np.array(hands[fall:]) < 0.1))
    assert touch < landed and hands[landed] < torso[landed]
    ahead = [(poses[touch][h] - poses[touch][s]) @ way for h, s in ((6, 4), (9, 7))
             if poses[touch][h, 1] < 0.1]
    assert max(ahead) > 0.2
    # It gets up by the recovery clip and blends back into the walk (kinematic to kinematic).
    back = [e for e in seen if e["controller"] == "clip walk"][-1]
    assert back["transition"] == "kinematic->kinematic"
    assert back["reason"] == "clip fall-recovery succeeded"
    assert walker.upright and world.script.status == "finished"


def test_the_trip_pitches_the_walker_over_the_ball_within_tenths_of_a_second():
    """The shin caught on the ball, the walker goes over it: its head is under 60 % of its
    standing height (a fall, as ``twig check`` counts one) within 0.6 s of the touch. It
    used to track its walk on, propped on its knees against the ball, and squat there for
    1.4 s before it fell."""
    world = twig.load_scene("trip")
    walker, ball = world.body("walker"), world.body("ball")
    standing = world.node_pos[walker.nodes][0, 1]
    touched = down = None
    while down is None and world.time < 4.0:
        world.step()
        if touched is None and ball.id in world.contacts.body_a.tolist() + \
                world.contacts.body_b.tolist():
            touched = world.time
        if world.node_pos[walker.nodes][0, 1] < 0.6 * standing:
            down = world.time
    assert touched is not None and down is not None
    assert down - touched < 0.6


def test_the_fallen_walker_lets_its_arms_go_once_down_and_gets_up():
    """The reflex's hands, held out on the ground once the walker was down, propped it up
    and kept it struggling for 4 s before it lay still; down, the arms go with the body and
    the recovery clip starts within 2 s of the fall."""
    world = twig.load_scene("trip")
    seen = []
    world.events.subscribe(seen.append, types=["controller"])
    world.run(seconds=8.0)
    times = {e["controller"]: e["t"] for e in seen}
    assert times["clip fall-recovery"] - times["reflex fall"] < 2.0
