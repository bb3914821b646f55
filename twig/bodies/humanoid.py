"""The humanoid stick figure: 16 nodes, 13 visible links, invisible bracing and joint limits.

Horswill 2009, section V and Fig. 3: two links for the spine, two per arm and leg, one each for
the head, the shoulders and the pelvis, joining 16 nodes. Bracing links keep the pelvis and the
shoulder girdle rigid and the torso from folding; the knees are hinges (the plane constraint of
eq. 4-5) that cannot bend backwards, the elbows cannot bend forwards, and inequality links
(Jakobsen's anti-crossing sticks) keep the knees and the feet from passing through each other.
Segment masses follow standard anthropometric fractions.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike

from twig.errors import PhysicsError
from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_points, as_positive

NODE_NAMES = ("head", "neck", "chest", "pelvis",
              "l_shoulder", "l_elbow", "l_hand", "r_shoulder", "r_elbow", "r_hand",
              "l_hip", "l_knee", "l_foot", "r_hip", "r_knee", "r_foot")

LINKS = {
    "lower_spine": ("pelvis", "chest"), "upper_spine": ("chest", "neck"),
    "head": ("neck", "head"), "shoulders": ("l_shoulder", "r_shoulder"),
    "hips": ("l_hip", "r_hip"),
    "l_upper_arm": ("l_shoulder", "l_elbow"), "l_forearm": ("l_elbow", "l_hand"),
    "r_upper_arm": ("r_shoulder", "r_elbow"), "r_forearm": ("r_elbow", "r_hand"),
    "l_thigh": ("l_hip", "l_knee"), "l_shin": ("l_knee", "l_foot"),
    "r_thigh": ("r_hip", "r_knee"), "r_shin": ("r_knee", "r_foot"),
}
"""The 13 visible links by name: (node, node)."""

VISIBLE_LINKS = tuple(LINKS.values())

LINK_RADIUS = {
    "lower_spine": 0.085, "upper_spine": 0.08, "head": 0.1, "shoulders": 0.055, "hips": 0.07,
    "l_upper_arm": 0.045, "l_forearm": 0.04, "r_upper_arm": 0.045, "r_forearm": 0.04,
    "l_thigh": 0.065, "l_shin": 0.05, "r_thigh": 0.065, "r_shin": 0.05,
}
"""Capsule radius of each visible link for a 1.75 m adult, metres (scaled with height)."""

BRACES = {
    "brace_l_hip": ("pelvis", "l_hip"), "brace_r_hip": ("pelvis", "r_hip"),
    "brace_chest_l_hip": ("chest", "l_hip"), "brace_chest_r_hip": ("chest", "r_hip"),
    "brace_neck_l_shoulder": ("neck", "l_shoulder"),
    "brace_neck_r_shoulder": ("neck", "r_shoulder"),
    "brace_chest_l_shoulder": ("chest", "l_shoulder"),
    "brace_chest_r_shoulder": ("chest", "r_shoulder"),
}
"""Invisible rigid links that keep the pelvis and the shoulder girdle rigid."""

BRACING_LINKS = tuple(BRACES.values())

PRESETS = {"adult": (1.75, 1.0), "child": (1.1, 1.3)}
"""Preset -> (standing height in m, head size relative to adult proportions): the paper's
parent and children. A child's head is large for its height."""

PAIN_THRESHOLD = 5.0
"""Impact energy (J) above which a humanoid feels pain: bumping into someone at a walk is
about 1-3 J, a punch or a fall onto the ground more."""

# Standing pose as (right, up, forward) fractions of height (Drillis & Contini proportions).
# The pelvis node (the sacrum) sits above the hip joints and the neck above the shoulder joints:
# braced triangles with three collinear nodes stay stretched where nodes of different radii rest
# on the ground. The braced torso is flat, so it can bend at the chest and twist between pelvis
# and shoulders; posture control holds the spine straight (twig.motor).
_POSE = {
    "head": (0.0, 0.935, 0.0), "neck": (0.0, 0.83, 0.0), "chest": (0.0, 0.69, 0.0),
    "pelvis": (0.0, 0.56, 0.0),
    "l_shoulder": (-0.129, 0.818, 0.0), "l_elbow": (-0.14, 0.63, -0.01),
    "l_hand": (-0.15, 0.44, 0.02),
    "r_shoulder": (0.129, 0.818, 0.0), "r_elbow": (0.14, 0.63, -0.01),
    "r_hand": (0.15, 0.44, 0.02),
    "l_hip": (-0.05, 0.53, 0.0), "l_knee": (-0.05, 0.285, 0.01), "l_foot": (-0.05, 0.03, 0.0),
    "r_hip": (0.05, 0.53, 0.0), "r_knee": (0.05, 0.285, 0.01), "r_foot": (0.05, 0.03, 0.0),
}

SEGMENTS: dict[str, tuple[float, dict[str, float]]] = {
    "head and neck": (0.081, {"head": 0.75, "neck": 0.25}),
    "thorax": (0.216, {"chest": 0.5, "neck": 0.2, "l_shoulder": 0.15, "r_shoulder": 0.15}),
    "abdomen": (0.139, {"pelvis": 0.5, "chest": 0.5}),
    "pelvis": (0.142, {"pelvis": 0.5, "l_hip": 0.25, "r_hip": 0.25}),
    **{f"{s} upper arm": (0.028, {f"{s}_shoulder": 0.5, f"{s}_elbow": 0.5}) for s in "lr"},
    **{f"{s} forearm": (0.016, {f"{s}_elbow": 0.5, f"{s}_hand": 0.5}) for s in "lr"},
    **{f"{s} hand": (0.006, {f"{s}_hand": 1.0}) for s in "lr"},
    **{f"{s} thigh": (0.100, {f"{s}_hip": 0.5, f"{s}_knee": 0.5}) for s in "lr"},
    **{f"{s} shank": (0.0465, {f"{s}_knee": 0.5, f"{s}_foot": 0.5}) for s in "lr"},
    **{f"{s} foot": (0.0145, {f"{s}_foot": 1.0}) for s in "lr"},
}
"""Segment -> (fraction of body mass, how it is lumped onto nodes). Fractions from Winter,
*Biomechanics and Motor Control of Human Movement*, table 4.1 (they sum to 1)."""

PROPORTIONS = ("legs", "arms", "shoulders", "hips", "head")
"""Keys of ``add_humanoid(proportions=...)``: scale factors (1 = standard) of leg length, arm
length, shoulder width, hip width and head size (the head capsule's radius)."""

KNEE_BEND_MIN = 0.006
"""Least forward bend of a knee, m for a 1.75 m adult: keeps the bend direction defined."""


def node_masses(total: float) -> np.ndarray:
    """(16,) node masses in kg, in NODE_NAMES order, from the segment table."""
    mass = dict.fromkeys(NODE_NAMES, 0.0)
    for fraction, shares in SEGMENTS.values():
        for node, share in shares.items():
            mass[node] += fraction * share * total
    return np.array([mass[n] for n in NODE_NAMES])


def _local_pose(height: float, proportions: Mapping[str, float]
                ) -> tuple[np.ndarray, dict[str, float]]:
    """(16, 3) standing pose in the body frame (right, up, forward) for ``height``, metres,
    and the scale factor of each of PROPORTIONS."""
    unknown = set(proportions) - set(PROPORTIONS)
    if unknown:
        raise PhysicsError(f"proportions: unknown key {sorted(unknown)[0]!r} "
                           f"(known: {', '.join(PROPORTIONS)})")
    scale = {k: as_positive(proportions.get(k, 1.0), f"proportions: {k}") for k in PROPORTIONS}
    pose = {n: np.array(p, dtype=float) for n, p in _POSE.items()}
    legs, pelvis_y = scale["legs"], _POSE["l_hip"][1]
    for n in ("l_knee", "r_knee", "l_foot", "r_foot"):
        pose[n][1] = pelvis_y - (pelvis_y - pose[n][1]) * legs
    lift = (legs - 1.0) * (pelvis_y - _POSE["l_foot"][1])
    for n in NODE_NAMES:  # back on their feet: longer legs raise the whole figure
        pose[n][1] += lift
    for s in "lr":
        shoulder = pose[f"{s}_shoulder"]
        shoulder[0] *= scale["shoulders"]
        for n in (f"{s}_elbow", f"{s}_hand"):
            rel = (np.array(_POSE[n]) - np.array(_POSE[f"{s}_shoulder"])) * scale["arms"]
            pose[n] = shoulder + rel
        for n in (f"{s}_hip", f"{s}_knee", f"{s}_foot"):
            pose[n][0] *= scale["hips"]
    local = np.array([pose[n] for n in NODE_NAMES]) * height
    return local, scale


def add_humanoid(world: PhysicsWorld, name: str, position: ArrayLike = (0.0, 0.0, 0.0), *,
                 preset: str = "adult", height: float | None = None, mass: float | None = None,
                 facing: float = 0.0, lying: bool = False,
                 proportions: Mapping[str, float] | None = None,
                 body_type: str = "humanoid") -> Body:
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
    proportions
        Scale factors of the preset's build, keys in PROPORTIONS (e.g. ``{"legs": 1.1}``).

    body_type
        The type recorded for the body (``"doll"`` for a rag doll built on this skeleton).

    The body's ``meta`` holds ``height``, ``preset``, ``scale`` (metres per adult metre),
    ``links`` (name -> link id of every visible link and brace) and the segment lengths.
    """
    if preset not in PRESETS:
        raise PhysicsError(f"{name}: field 'preset': unknown preset {preset!r} "
                           f"(known: {', '.join(PRESETS)})")
    preset_height, head = PRESETS[preset]
    height = as_positive(preset_height if height is None else height, f"{name}: height")
    base = as_points(position, f"{name}: position").reshape(3)
    total = 70.0 * (height / 1.75) ** 3 if mass is None else as_positive(mass, f"{name}: mass")
    build = dict(proportions or {})
    build["head"] = build.get("head", 1.0) * head
    local, scale = _local_pose(height, build)
    c, s = np.cos(facing), np.sin(facing)
    # Body frame columns: right, up, forward. Facing +z, the figure's right is -x.
    frame = np.array([[-c, 0.0, s], [0.0, 1.0, 0.0], [s, 0.0, c]]).T
    if lying:
        # On its back: body up along the heading, body forward up, just off the ground.
        local = local[:, [0, 2, 1]] * (-1.0, 1.0, 1.0) + (0.0, 0.1 * height / 1.75, 0.0)
    pos = local @ frame.T + base
    size = height / 1.75
    body = world.add_body(name, body_type, pos, mass=node_masses(total),
                          node_names=NODE_NAMES,
                          meta={"height": height, "preset": preset, "scale": size})
    idx = {n: body.node(n) for n in NODE_NAMES}
    ids = world.add_links([[idx[a], idx[b]] for a, b in LINKS.values()], body=body)
    brace_ids = world.add_links([[idx[a], idx[b]] for a, b in BRACES.values()], body=body,
                                visible=False)
    links = dict(zip(LINKS, ids.tolist(), strict=True))
    links.update(zip(BRACES, brace_ids.tolist(), strict=True))
    for link, r in LINK_RADIUS.items():
        a, b = LINKS[link]
        radius = r * size * (scale["head"] if link == "head" else 1.0)
        world.add_capsule(idx[a], idx[b], radius, body=body)
    # Knees and hands cannot pass through the legs and torso (Horswill V, VI.D).
    world.set_collision(body, self_collide=True)
    world.set_pain(body, threshold=PAIN_THRESHOLD)
    _add_joint_limits(world, body, idx, links, size)
    length = {k: float(np.linalg.norm(pos[NODE_NAMES.index(b)] - pos[NODE_NAMES.index(a)]))
              for k, (a, b) in LINKS.items()}
    world.body_record(body.id).meta.update({"links": links, "lengths": length})
    return body


def _add_joint_limits(world: PhysicsWorld, body: Body, idx: dict[str, int],
                      links: dict[str, int], size: float) -> None:
    """Torso fold limit, knee hinges with anti-hyperextension, elbows, anti-crossing links."""
    p = world.node_pos
    # The torso may bend a little but not fold: pelvis-neck no shorter than 90 % upright.
    upright = float(np.linalg.norm(p[idx["neck"]] - p[idx["pelvis"]]))
    links["limit_torso"] = world.add_link(idx["pelvis"], idx["neck"], min=0.9 * upright,
                                          body=body, visible=False).id
    # Knee planes (eq. 4-5): forward = (l_hip - r_hip) x (neck - pelvis), the pelvis's facing;
    # knees bend only forwards.
    forward = (idx["r_hip"], idx["l_hip"], idx["pelvis"], idx["neck"])
    # Elbows bend only backwards: "forward" for them is the shoulders' backward.
    backward = (idx["l_shoulder"], idx["r_shoulder"], idx["chest"], idx["neck"])
    for side in "lr":
        world.add_hinge(idx[f"{side}_hip"], idx[f"{side}_knee"], idx[f"{side}_foot"], forward,
                        bend_min=KNEE_BEND_MIN * size, body=body)
        world.add_hinge(idx[f"{side}_shoulder"], idx[f"{side}_elbow"], idx[f"{side}_hand"],
                        backward, plane=False, bend_min=0.0, body=body)
    # Anti-crossing sticks (Jakobsen): knees and feet keep apart by their capsules' widths.
    for joint, radius in (("knee", LINK_RADIUS["l_thigh"]), ("foot", LINK_RADIUS["l_shin"])):
        links[f"limit_{joint}s"] = world.add_link(
            idx[f"l_{joint}"], idx[f"r_{joint}"], min=1.6 * radius * size, body=body,
            visible=False).id
