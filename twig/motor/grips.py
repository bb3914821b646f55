"""Grips: a hand holding an object by a link from the hand to one of its nodes (Horswill
2009, VI.C: "an invisible, zero-length link between the character's hand and one of the nodes
of the object").

The paper forms the zero-length link when the hand arrives. A hand that stops short (a node
inside a ball lies a radius in; a crouching child's hand gets only so low over a doll on the
floor) would have the link close the rest of the gap in one tick: the doll leapt into the
child's hand at 8-9 m/s. So a grip forms as an inequality link that lets the hand and the node
be no farther apart than they are, and closes at :data:`CLOSE_SPEED` (the hand pulls the
object in) until it is the zero-length link; the tethers that hang the rest of the object at
its length (:func:`~twig.bodies.tethers.add_grip_tethers`) are added then. A hug's hands join
behind the partner the same way (a child's hand that holds a doll stops up to 0.35 m short of
the other).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from twig.bodies.tethers import add_grip_tethers
from twig.physics import Body, Link

if TYPE_CHECKING:
    from twig.motor.character import Character
    from twig.motor.system import MotorSystem

CLOSE_SPEED = 1.0
"""Fastest a grip closes the gap between the hand and the node it holds, m/s."""
CARRY_DAMPING = 0.1
"""Fraction of a carried object's velocity relative to the carrying hand that each of its
nodes loses per tick (eq. 2's damping relative to another node): a fist is no frictionless
pivot. Hung from a point, a doll carried by its foot whirled round a running child's hand,
its far hand at 8-11 m/s; its limbs still flop against each other."""


@dataclass
class Grip:
    """What one hand holds.

    Attributes
    ----------
    link
        The link from the hand node to the held node (its maximum shrinks to 0 as it closes).
    item
        The held body's name.
    item_id
        The held body's id (the tethers are added to it once the grip has closed).
    tethers
        Link ids of the tethers (empty until closed, and for a hand holding its own body).
    closing
        Whether the link is still closing.
    """

    link: Link
    item: str
    item_id: int
    tethers: np.ndarray
    closing: bool


def closing_link(world, a: int, b: int) -> Link:
    """A link that holds nodes ``a`` and ``b`` no farther apart than they are now; the motor
    system's act stage closes it to zero length at :data:`CLOSE_SPEED` (register it in
    ``motor.joins``, or hold it in a :class:`Grip`)."""
    gap = float(np.linalg.norm(world.node_pos[a] - world.node_pos[b]))
    return world.add_link(a, b, min=0.0, max=gap, visible=False)


def close(world, link: Link) -> bool:
    """Shorten a closing link by one tick's :data:`CLOSE_SPEED` (never longer than its nodes'
    gap now); True once it is zero-length."""
    row = world.link_rows([link.id])
    a, b = world.link_nodes[row[0]]
    gap = float(np.linalg.norm(world.node_pos[a] - world.node_pos[b]))
    most = max(0.0, min(float(world.links["max"][row[0]]), gap) - CLOSE_SPEED * world.dt)
    world.set_link_max(row, most)
    return most == 0.0


def take_hold(who: Character, hand: str, node: int, item: Body) -> None:
    """Link ``who``'s ``hand`` (``"left"``/``"right"``) to global node ``node`` of ``item``
    and say so (a ``grab`` event): a :func:`closing_link`. A sleeping item wakes: it is to
    move with the hand."""
    world = who.world
    holder = who.node(f"{hand[0]}_hand")
    link = closing_link(world, holder, node)
    world.wake(item)
    if item.id != who.id:
        world.events.emit("grab", agent=who.name, object=item.name, hand=hand)
    held = Grip(link, item.name, item.id, np.zeros(0, dtype=np.int64), closing=True)
    who.motor.grips[(who.id, hand)] = held
    _close_grip(world, held)


def _close_grip(world, held: Grip) -> None:
    """One tick of a closing grip; once closed, the rest of the held body is tied to the
    hand (:func:`~twig.bodies.tethers.add_grip_tethers`)."""
    if not close(world, held.link):
        return
    held.closing = False
    hand, node = world.link_nodes[world.link_rows([held.link.id])[0]]
    if held.item_id != int(world.node_body[hand]) and world.has_body(held.item_id):
        held.tethers = add_grip_tethers(world, int(hand), Body(world, held.item_id), int(node))


def close_links(motor: MotorSystem) -> None:
    """One tick of every closing grip and join (the act stage, before the motor kernel)."""
    world = motor.world
    for held in [g for g in motor.grips.values() if g.closing and g.link.alive]:
        _close_grip(world, held)
    motor.joins = [link for link in motor.joins if link.alive and not close(world, link)]


def steady(world, item: Body, hand: int) -> None:
    """Damp every node of ``item`` toward the velocity of global node ``hand``, which carries
    it (:data:`CARRY_DAMPING`); :func:`let_go` ends it."""
    world.nodes["damp_ref"][item.nodes] = hand
    world.nodes["damp_rel"][item.nodes] = CARRY_DAMPING


def let_go(who: Character, side: str) -> None:
    """Remove the ``side`` hand's grip, if any, and say so (a ``release`` event); what the
    hand steadied (:func:`steady`) swings freely again."""
    held = who.motor.grips.pop((who.id, side), None)
    if held is not None:
        if held.link.alive:
            held.link.remove()
        who.world.remove_links(held.tethers)
        nodes = who.world.nodes
        steadied = nodes["damp_ref"] == who.node(f"{side[0]}_hand")
        nodes["damp_ref"][steadied] = -1
        nodes["damp_rel"][steadied] = 0.0
        if held.item != who.name:
            who.world.events.emit("release", agent=who.name, object=held.item, hand=side)
