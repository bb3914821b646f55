"""Blends keep the figure's rigid links, and a clip ends on time even when tracked (#33 items 8
and 9)."""

import numpy as np

import twig
from twig.hybrid import play_clip, supervisor
from twig.hybrid.controllers import ClipPlayer


def _rigid_links(world, body):
    """(pairs (L, 2), rest lengths (L,)) of the links of ``body`` that cannot stretch."""
    nodes = np.arange(len(world.node_pos))[body.nodes]
    pairs = world.link_nodes
    rigid = np.isin(pairs, nodes).all(axis=1) & (world.link_max - world.link_min < 1e-9)
    return pairs[rigid], world.link_min[rigid]


def test_blending_into_the_recovery_clip_keeps_every_rigid_link_within_ten_percent():
    """The trip scene blends the fallen walker into the fall-recovery clip (3.8 to 4.1 s): a
    blend of positions shrank the forearms by 76 % and the neck by 62 %."""
    world = twig.load_scene("trip")
    walker = world.body("walker")
    sup = supervisor(walker)
    pairs, rest = _rigid_links(world, walker)
    worst, blended = 0.0, 0
    while world.time < 5.0:
        world.step()
        player = sup.active
        if isinstance(player, ClipPlayer) and (player.offset is not None
                                               or player.fade is not None):
            blended += 1
            length = np.linalg.norm(world.node_pos[pairs[:, 0]] - world.node_pos[pairs[:, 1]],
                                    axis=1)
            worst = max(worst, float(np.abs(length / rest - 1.0).max()))
    assert blended >= 30  # the walk's blend in and the recovery's, at least
    assert worst < 0.10


def test_a_clip_touching_a_prop_the_character_holds_ends_on_time():
    """The boss lets go of the clipboard to wave; its touch hands the clip to tracking.
    The clip's time ran out while tracking, and it went on tracking for ever (the action
    never ended)."""
    world = twig.load_scene("office")
    world.run(seconds=1.0)
    boss = world.body("boss")
    seen = []
    world.events.subscribe(lambda e: seen.append(e["controller"]), types=["controller"])
    act = play_clip(boss, "wave")
    start = world.time
    while not act.done and world.time - start < 10.0:
        world.step()
    assert "tracking wave" in seen  # the prop's contact did reach the clip
    assert act.status == "succeeded"
    assert world.time - start < 2.5  # the wave is 2 s long
    assert seen[-1] == "motor"


def test_a_body_lying_on_its_front_blends_into_the_recovery_clip_without_a_leap():
    """The fallen walker lies on its front; the recovery clip starts on its back. Turned to
    the clip by the hips, the clip's head lay beyond the hips and the blend swung the head
    through them: 1 m in a 30 fps frame. Turned by the trunk, it rolls over."""
    world = twig.load_scene("trip")
    walker = world.body("walker")
    path = []
    while world.time < 5.0:
        world.step()
        path.append(world.node_pos[walker.nodes].copy())
    path = np.array(path)
    assert np.linalg.norm(path[2:] - path[:-2], axis=2).max() < 0.5


def test_a_blend_turns_a_limb_that_points_the_other_way_instead_of_flipping_it():
    """The kicked partner lies with its forearm pointing the other way from the recovery
    clip's. Blending node positions, the hand passed its elbow and the forearm, rebuilt at its
    length, flipped over in two ticks (the hand at 20 m/s, 0.56 m in a 30 fps frame); each
    bone now turns from one direction to the other over the blend."""
    world = twig.load_scene("kick")
    partner = world.body("partner")
    sup = supervisor(partner)
    hands = [partner.node("l_hand"), partner.node("r_hand")]
    fastest, blended = 0.0, 0
    while world.time < 6.0:
        before = world.node_pos[hands].copy()
        world.step()
        player = sup.active
        if isinstance(player, ClipPlayer) and player.offset is not None:
            blended += 1
            fastest = max(fastest, float(np.linalg.norm(world.node_pos[hands] - before,
                                                        axis=1).max()) / world.dt)
    assert blended > 20 and fastest < 8.0
