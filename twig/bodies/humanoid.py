"""The humanoid stick figure: 16 nodes, 13 visible links and invisible bracing.

Horswill 2009, section V and Fig. 3: two links for the spine, two per arm and leg, one each for
the head, the shoulders and the pelvis, joining 16 nodes. Bracing links keep the pelvis and the
shoulder girdle rigid and the torso from folding; hinge constraints keep the knees in the plane of
the leg (eq. 4-5).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from twig.errors import PhysicsError
from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_points, as_positive

NODE_NAMES = ("head", "neck", "chest", "pelvis",
              "l_shoulder", "l_elbow", "l_hand", "r_shoulder", "r_elbow", "r_hand",
              "l_hip", "l_knee", "l_foot", "r_hip", "r_knee", "r_foot")

VISIBLE_LINKS = (("pelvis", "chest"), ("chest", "neck"), ("neck", "head"),
                 ("l_shoulder", "r_shoulder"), ("l_hip", "r_hip"),
                 ("l_shoulder", "l_elbow"), ("l_elbow", "l_hand"),
                 ("r_shoulder", "r_elbow"), ("r_elbow", "r_hand"),
                 ("l_hip", "l_knee"), ("l_knee", "l_foot"),
                 ("r_hip", "r_knee"), ("r_knee", "r_foot"))

LINK_RADIUS = {
    ("pelvis", "chest"): 0.085, ("chest", "neck"): 0.08, ("neck", "head"): 0.1,
    ("l_shoulder", "r_shoulder"): 0.055, ("l_hip", "r_hip"): 0.07,
    ("l_shoulder", "l_elbow"): 0.045, ("l_elbow", "l_hand"): 0.04,
    ("r_shoulder", "r_elbow"): 0.045, ("r_elbow", "r_hand"): 0.04,
    ("l_hip", "l_knee"): 0.065, ("l_knee", "l_foot"): 0.05,
    ("r_hip", "r_knee"): 0.065, ("r_knee", "r_foot"): 0.05,
}
"""Capsule radius of each visible link for a 1.75 m adult, metres (scaled with height)."""

PRESETS = {"adult": (1.75, 1.0), "child": (1.1, 1.3)}
"""Preset -> (standing height in m, head size relative to adult proportions): the paper's
parent and children. A child's head is large for its height."""

PAIN_THRESHOLD = 10.0
"""Impact energy (J) above which a humanoid feels pain (a firm shove is a few joules)."""

BRACING_LINKS = (("pelvis", "l_hip"), ("pelvis", "r_hip"), ("chest", "l_hip"),
                 ("chest", "r_hip"), ("neck", "l_shoulder"), ("neck", "r_shoulder"),
                 ("chest", "l_shoulder"), ("chest", "r_shoulder"))

# Standing pose as (right, up, forward) fractions of height (Drillis & Contini proportions).
_POSE = {
    "head": (0.0, 0.935, 0.0), "neck": (0.0, 0.818, 0.0), "chest": (0.0, 0.69, 0.0),
    "pelvis": (0.0, 0.53, 0.0),
    "l_shoulder": (-0.129, 0.818, 0.0), "l_elbow": (-0.14, 0.63, 0.0),
    "l_hand": (-0.15, 0.44, 0.02),
    "r_shoulder": (0.129, 0.818, 0.0), "r_elbow": (0.14, 0.63, 0.0),
    "r_hand": (0.15, 0.44, 0.02),
    "l_hip": (-0.05, 0.53, 0.0), "l_knee": (-0.05, 0.285, 0.01), "l_foot": (-0.05, 0.03, 0.0),
    "r_hip": (0.05, 0.53, 0.0), "r_knee": (0.05, 0.285, 0.01), "r_foot": (0.05, 0.03, 0.0),
}

# Segment mass fractions of total body mass (Winter, Biomechanics of Human Movement), lumped
# onto nodes: each segment's mass is split between its end nodes.
_NODE_MASS_FRACTION = {
    "head": 0.06, "neck": 0.08, "chest": 0.22, "pelvis": 0.16,
    "l_shoulder": 0.03, "l_elbow": 0.03, "l_hand": 0.015,
    "r_shoulder": 0.03, "r_elbow": 0.03, "r_hand": 0.015,
    "l_hip": 0.06, "l_knee": 0.07, "l_foot": 0.035,
    "r_hip": 0.06, "r_knee": 0.07, "r_foot": 0.035,
}


def add_humanoid(world: PhysicsWorld, name: str, position: ArrayLike = (0.0, 0.0, 0.0), *,
                 preset: str = "adult", height: float | None = None, mass: float | None = None,
                 facing: float = 0.0, lying: bool = False, body_type: str = "humanoid") -> Body:
    """Add a humanoid whose feet rest at ``position`` (metres; y is the ground).

    Parameters
    ----------
    preset
        ``"adult"`` (1.75 m) or ``"child"`` (1.1 m, a larger head for its size); see PRESETS.
    height
        Standing height, metres (default: the preset's).
    mass
        Total mass, kg; default scales as 70 kg * (height / 1.75)^3.
    facing
        Heading in radians about +y; 0 faces +z (when ``lying``, the head points that way).
    lying
        Start lying on its back on the ground instead of standing.
    body_type
        The type recorded for the body (``"doll"`` for a rag doll built on this skeleton).
    """
    if preset not in PRESETS:
        raise PhysicsError(f"{name}: field 'preset': unknown preset {preset!r} "
                           f"(known: {', '.join(PRESETS)})")
    preset_height, head = PRESETS[preset]
    height = as_positive(preset_height if height is None else height, f"{name}: height")
    base = as_points(position, f"{name}: position").reshape(3)
    total = 70.0 * (height / 1.75) ** 3 if mass is None else as_positive(mass, f"{name}: mass")
    c, s = np.cos(facing), np.sin(facing)
    # Body frame columns: right, up, forward. Facing +z, the figure's right is -x.
    frame = np.array([[-c, 0.0, s], [0.0, 1.0, 0.0], [s, 0.0, c]]).T
    local = np.array([_POSE[n] for n in NODE_NAMES]) * height
    if lying:
        # On its back: body up along the heading, body forward up, just off the ground.
        local = local[:, [0, 2, 1]] * (-1.0, 1.0, 1.0) + (0.0, 0.1 * height / 1.75, 0.0)
    pos = local @ frame.T + base
    masses = np.array([_NODE_MASS_FRACTION[n] for n in NODE_NAMES]) * total
    body = world.add_body(name, body_type, pos, mass=masses, node_names=NODE_NAMES,
                          meta={"height": height, "preset": preset})
    idx = {n: body.node(n) for n in NODE_NAMES}
    world.add_links([[idx[a], idx[b]] for a, b in VISIBLE_LINKS], body=body)
    world.add_links([[idx[a], idx[b]] for a, b in BRACING_LINKS], body=body, visible=False)
    for (a, b), r in LINK_RADIUS.items():
        scale = head if (a, b) == ("neck", "head") else 1.0
        world.add_capsule(idx[a], idx[b], scale * r * height / 1.75, body=body)
    # Knees and hands cannot pass through the legs and torso (Horswill V, VI.D).
    world.set_collision(body, self_collide=True)
    world.set_pain(body, threshold=PAIN_THRESHOLD)
    # The torso may bend a little but not fold: pelvis-neck no shorter than 90 % upright.
    upright = float(np.linalg.norm(world.node_pos[idx["neck"]] - world.node_pos[idx["pelvis"]]))
    world.add_link(idx["pelvis"], idx["neck"], min=0.9 * upright, body=body, visible=False)
    # Knee planes: forward = (l_hip - r_hip) x (neck - pelvis) is the pelvis's facing.
    forward = (idx["r_hip"], idx["l_hip"], idx["pelvis"], idx["neck"])
    for side in ("l", "r"):
        world.add_hinge(idx[f"{side}_hip"], idx[f"{side}_knee"], idx[f"{side}_foot"], forward,
                        body=body)
    return body
