"""The guard reflex: something flying at the head interrupts a clip; the hands come up."""

import twig
from twig.hybrid import play_clip, supervisor


def test_a_ball_thrown_at_the_head_brings_the_hands_up_then_the_clip_resumes():
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid")
    seen = []
    world.events.subscribe(seen.append, types=["controller"])
    play_clip(kid, "walk", loops=0)
    world.run(seconds=0.6)
    world.add_ball("ball", position=(3.0, 1.6, 1.3), velocity=(-8.0, 1.2, 0.0))
    sup = supervisor(kid)
    guarded = []
    for _ in range(90):
        world.step()
        if sup.active.name == "reflex guard":
            p = world.node_pos[kid.nodes]
            guarded.append(min(p[6, 1], p[9, 1]) - p[2, 1])  # lower hand above the chest
    names = [(e["controller"], e["reason"]) for e in seen]
    assert ("reflex guard", "ball flies at the head") in names
    assert max(guarded) > 0.1  # both hands up, above the chest
    assert names[-1][0] == "clip walk" and kid.upright
