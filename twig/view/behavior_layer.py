"""What the viewer shows of the behaviour layer (registered with the other providers):
each autonomous character's behaviours, activations, focus, gaze and anxiety in the inspection
panel, and lines to the focus of attention as an overlay."""

from __future__ import annotations

from typing import Any

import numpy as np

from twig.behavior.character import agent_of
from twig.physics import Body, PhysicsWorld
from twig.view.registry import Segments, add_inspector, add_overlay


def behaviour_fields(world: PhysicsWorld, body: Body) -> dict[str, Any] | None:
    """Viewer inspector: behaviour per level, activations (plotted), focus, gaze and anxiety
    (the motor layer's inspector adds the running actions)."""
    agent = agent_of(world, body)
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
    system = world.systems.get("behavior")
    if system is None or not system.agents:
        return None
    pairs = [(a.character.node_position("head"), system.object_pos[k])
             for a, k in zip(system.agents, system.attention.focus, strict=False)
             if 0 <= k < len(system.object_pos)]
    if not pairs:
        return None
    return Segments(np.array([p for p, _ in pairs]), np.array([q for _, q in pairs]))


add_inspector("behaviour", behaviour_fields)
add_overlay("focus lines", focus_segments, color=(160, 0, 160))
