"""What the behaviour layer adds to the surfaces below it: ``kid.behavior`` on characters,
the ``behavior``/``focus``/``activations`` script queries, and the viewer's behaviour panel
fields and focus-line overlay. Installed once when :mod:`twig.behavior` is imported.

The motor layer knows nothing of behaviours (DESIGN.md: dependencies point downward), so the
property and the registrations are made from here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from twig.commands import Json, command
from twig.motor import Character
from twig.physics import Body, PhysicsWorld
from twig.view.providers import Segments, add_inspector, add_overlay


def current_behavior(character: Character) -> str | None:
    """The character's current top-level behaviour (``"play-ball"``), or None if it is not
    autonomous."""
    system = character.world.__dict__.get("_behavior")
    agent = system.agent(character) if system is not None else None
    return agent.behavior if agent is not None else None


def _agent(world: PhysicsWorld, body: Body):
    system = world.__dict__.get("_behavior")
    if system is None or body.type != "humanoid":
        return None
    return system.agent(body.name)


@command(on=Character, name="behavior")
def behavior_query(character: Character) -> Json:
    """The current behaviour of each level (goals, motor), or null if not autonomous."""
    agent = _agent(character.world, character)
    return agent.behaviors() if agent is not None else None


@command(on=Character, name="focus")
def focus_query(character: Character) -> Json:
    """The focus of attention (maximal salience) and what the gaze rests on, by name."""
    agent = _agent(character.world, character)
    if agent is None:
        return None
    return {"focus": agent.focus, "looking_at": agent.looking_at,
            "anxiety": round(agent.anxiety, 6)}


@command(on=Character, name="activations")
def activations_query(character: Character) -> Json:
    """Last tick's activation of every behaviour, by level and name."""
    agent = _agent(character.world, character)
    if agent is None:
        return None
    return {lv.name: {k: round(v, 6) for k, v in lv.activation_of().items()}
            for lv in agent.levels}


def behaviour_fields(world: PhysicsWorld, body: Body) -> dict[str, Any] | None:
    """Viewer inspector: behaviour per level, activations (plotted), focus, gaze and anxiety
    (the motor layer's inspector adds the running actions)."""
    agent = _agent(world, body)
    if agent is None or agent.row < 0:
        return None
    activation: dict[str, float] = {}
    for level in agent.levels:
        activation.update({k: round(v, 4) for k, v in level.activation_of().items()})
    levels = agent.behaviors()
    return {"behavior": agent.behavior or "", "motor behavior": levels.get("motor") or "",
            "activation": activation, "focus": agent.focus or "",
            "looking at": agent.looking_at or "", "anxiety": round(agent.anxiety, 4)}


def focus_segments(world: PhysicsWorld) -> Segments | None:
    """Overlay: a line from each autonomous character's head to its focus of attention (the
    motor layer's own overlays draw walk vectors and gaze lines)."""
    system = world.__dict__.get("_behavior")
    if system is None or not system.agents:
        return None
    pairs = [(a.character.node_position("head"), system.object_pos[k])
             for a, k in zip(system.agents, system.attention.focus, strict=False)
             if 0 <= k < len(system.object_pos)]
    if not pairs:
        return None
    return Segments(np.array([p for p, _ in pairs]), np.array([q for _, q in pairs]))


def install() -> None:
    """Add ``Character.behavior`` and the viewer providers (idempotent)."""
    Character.behavior = property(current_behavior, doc=current_behavior.__doc__)
    add_inspector("behaviour", behaviour_fields)
    add_overlay("focus lines", focus_segments, color=(160, 0, 160))
