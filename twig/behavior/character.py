"""The behaviour layer's script queries on characters: ``behavior``, ``focus`` and
``activations`` (registered when :mod:`twig.behavior` is imported). ``kid.behavior`` is the
motor layer's :attr:`~twig.motor.Character.behavior`, which asks the world's behaviour system;
the viewer's behaviour fields are in :mod:`twig.view.behavior_layer`.
"""

from __future__ import annotations

from twig.commands import Json, command
from twig.motor import Character
from twig.physics import Body, PhysicsWorld


def agent_of(world: PhysicsWorld, body: Body):
    """The behaviour agent of ``body``, or None if it is not autonomous."""
    system = world.systems.get("behavior")
    if system is None or body.type != "humanoid":
        return None
    return system.agent(body.name)


@command(on=Character, name="behavior")
def behavior_query(character: Character) -> Json:
    """The current behaviour of each level (goals, motor), or null if not autonomous."""
    agent = agent_of(character.world, character)
    return agent.behaviors() if agent is not None else None


@command(on=Character, name="focus")
def focus_query(character: Character) -> Json:
    """The focus of attention (maximal salience) and what the gaze rests on, by name."""
    agent = agent_of(character.world, character)
    if agent is None:
        return None
    return {"focus": agent.focus, "looking_at": agent.looking_at,
            "anxiety": round(agent.anxiety, 6)}


@command(on=Character, name="activations")
def activations_query(character: Character) -> Json:
    """Last tick's activation of every behaviour, by level and name."""
    agent = agent_of(character.world, character)
    if agent is None:
        return None
    return {lv.name: {k: round(v, 6) for k, v in lv.activation_of().items()}
            for lv in agent.levels}
