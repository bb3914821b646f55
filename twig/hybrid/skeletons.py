"""Which joints of a motion-capture skeleton stand for the humanoid's nodes: the naming
conventions of common mocap sources, the file's units and its rest pose.

Every source names its joints its own way, and the same name can mean different joints:
``LeftShoulder`` is the collar bone in Mixamo, MotionBuilder and CMU's own conversions, but
the upper arm in CMU's 3ds Max-friendly release. So a file is matched against one whole
convention at a time (:data:`CONVENTIONS`), not name by name; the convention that gives the
most nodes wins (ties: the first listed), and a user's ``joint_map`` overrides any entry.
Names match ignoring case, ``_``, ``-``, spaces, a namespace prefix (``mixamorig:``) and a
3ds Max Biped prefix (``Bip01``). A point may be a joint's End Site, written
``"joint/End Site"`` (three.js's sample has no head joint: its head is the neck's End Site).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from twig.bodies.humanoid import NODE_NAMES
from twig.errors import TwigError
from twig.hybrid.bvh import Bvh

MAPPED = tuple(n for n in NODE_NAMES if n != "pelvis")
"""The nodes a joint map must give (all but the pelvis: from the joint on it in twig's own
files, placed by its bracing otherwise)."""

END = "/End Site"
"""Suffix naming a joint's End Site as a point (``"neck/End Site"``)."""


def _sides(shoulder: str, elbow: str, hand: str, hip: str, knee: str, foot: str,
           left: str = "Left", right: str = "Right") -> dict[str, tuple[str, ...]]:
    """The six limb nodes of both sides, each side's names written with ``{}`` for it."""
    out: dict[str, tuple[str, ...]] = {}
    for s, word in (("l", left), ("r", right)):
        for node, names in (("shoulder", shoulder), ("elbow", elbow), ("hand", hand),
                            ("hip", hip), ("knee", knee), ("foot", foot)):
            out[f"{s}_{node}"] = tuple(n.format(word) for n in names.split("|"))
    return out


CONVENTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "twig": {"head": ("Head",), "neck": ("Neck",), "chest": ("Chest",),
             **_sides("{}Arm", "{}ForeArm", "{}Hand", "{}UpLeg", "{}Leg", "{}Foot")},
    "CMU": {"head": ("Head",), "neck": ("Neck1",), "chest": ("Spine1",),
            **_sides("{}Arm", "{}ForeArm", "{}Hand", "{}UpLeg", "{}Leg", "{}Foot")},
    "CMU 3ds Max-friendly": {"head": ("Head",), "neck": ("Neck",), "chest": ("Chest2", "Chest"),
                             **_sides("{}Shoulder", "{}Elbow", "{}Wrist", "{}Hip", "{}Knee",
                                      "{}Ankle")},
    "3ds Max Biped": {"head": ("Head",), "neck": ("Neck",), "chest": ("Spine2", "Spine1"),
                      **_sides("{}UpperArm", "{}Forearm", "{}Hand", "{}Thigh", "{}Calf",
                               "{}Foot", "L", "R")},
    "Mixamo": {"head": ("Head",), "neck": ("Neck",), "chest": ("Spine2",),
               **_sides("{}Arm", "{}ForeArm", "{}Hand", "{}UpLeg", "{}Leg", "{}Foot")},
    "MotionBuilder / HumanIK": {"head": ("Head",), "neck": ("Neck",),
                                "chest": ("Spine3", "Spine2", "Spine1"),
                                **_sides("{}Arm", "{}ForeArm", "{}Hand", "{}UpLeg", "{}Leg",
                                         "{}Foot")},
    "SmartBody": {"head": ("skullbase",), "neck": ("spine4",), "chest": ("spine3",),
                  **_sides("{}_shoulder", "{}_elbow", "{}_wrist", "{}_hip", "{}_knee",
                           "{}_ankle", "l", "r")},
    "Poser / DAZ": {"head": ("head",), "neck": ("neck",), "chest": ("chest",),
                    **_sides("{}Shldr", "{}ForeArm", "{}Hand", "{}Thigh", "{}Shin", "{}Foot",
                             "l", "r")},
    "three.js sample": {"head": ("neck" + END,), "neck": ("neck",), "chest": ("chest",),
                        **_sides("{}shldr", "{}forearm", "{}hand", "{}thigh", "{}shin",
                                 "{}foot", "l", "r")},
    "PyMO-style": {"head": ("Head" + END,), "neck": ("Head",), "chest": ("Spine",),
                   **_sides("{}Arm", "{}ForeArm", "{}Hand", "{}UpLeg", "{}Leg", "{}Foot")},
    "Unity / VRM": {"head": ("Head",), "neck": ("Neck",), "chest": ("UpperChest", "Chest"),
                    **_sides("{}UpperArm", "{}LowerArm", "{}Hand", "{}UpperLeg", "{}LowerLeg",
                             "{}Foot")},
}
"""Convention -> node -> the joint names it may have, tried in order. The nodes' points:
the neck node is the base of the neck, the head node the skull, the shoulder, elbow and hand
nodes the arm's joints (not the collar bone), the hip, knee and foot nodes the leg's."""

UNITS = (("m", 1.0), ("cm", 0.01), ("mm", 0.001), ("inches", 0.0254),
         ("CMU units", 0.0254 / 0.45))
"""Length units a file may use, with metres per unit: CMU's conversions use 1/0.45 inches
(mocap.cs.cmu.edu, FAQ)."""
LEG_M = 0.8
"""A typical adult leg (hip to ankle), metres, for telling the units from the rest legs."""


SHOWN = 60
"""Joint names an error lists at most (a file may have thousands)."""


class RetargetError(TwigError):
    """A skeleton's joints cannot be matched to the humanoid's nodes (names what is missing)."""


@dataclass(frozen=True)
class Retargeting:
    """How a file was read onto the humanoid (``str()`` gives one line).

    Attributes
    ----------
    source
        The file.
    convention
        The naming convention matched (:data:`CONVENTIONS`), or ``"joint map"``.
    joints
        Node -> the joint (or ``joint/End Site``) it comes from.
    unit, metres_per_unit
        The file's length unit, as told from its rest legs (:data:`UNITS`).
    rest_pose
        The file's rest pose: ``"T"``, ``"A"`` or ``"arms down"`` (upper arms' angle from
        straight down: over 65, 25 to 65, under 25 degrees).
    root_moves
        Whether the root joint has position channels (a root without them stays where its
        offset puts it, and the floor fit keeps the figure on the ground).
    played_as
        ``"joint positions"`` (twig's own skeleton) or ``"rebuilt"`` (bone directions).
    floor
        Metres subtracted from the clip's heights (fitted: the feet at the character's
        standing foot height when down; or as given).
    """

    source: str
    convention: str
    joints: dict[str, str]
    unit: str
    metres_per_unit: float
    rest_pose: str
    root_moves: bool
    played_as: str = "rebuilt"
    floor: float = 0.0

    def __str__(self) -> str:
        joints = ", ".join(f"{n}={j}" for n, j in self.joints.items())
        moves = "" if self.root_moves else ", root without translation"
        return (f"{self.source}: {self.convention} skeleton, {self.unit}, {self.rest_pose} "
                f"rest pose{moves}, played at {self.played_as}, floor {self.floor:+.3f} m; "
                f"{joints}")


def _key(name: str) -> str:
    """A joint name compared: no namespace, Biped prefix, case, ``_``, ``-`` or spaces."""
    key = re.sub(r"[\s_\-]", "", name.rsplit(":", 1)[-1]).lower()
    return re.sub(r"^bip0*1", "", key)


def point_names(bvh: Bvh) -> tuple[str, ...]:
    """The file's points: its joints in file order, then each End Site as ``joint/End Site``
    (in the order of :attr:`Bvh.end_sites`)."""
    return (*bvh.names, *(bvh.names[j] + END for j in bvh.end_sites))


def match_joints(bvh: Bvh, joint_map: Mapping[str, str] | None = None
                 ) -> tuple[str, dict[str, int]]:
    """The convention the file follows and node -> point index (into :func:`point_names`).

    Raises
    ------
    RetargetError
        A ``joint_map`` key that is not a node; or no convention (with the map's entries)
        gives every node: ``file:line:`` of the joint below which the first missing node is
        expected, the closest convention, each missing node with the names tried and where
        it belongs, and the joints the file has.
    """
    given = dict(joint_map or {})
    unknown = sorted(set(given) - set(MAPPED))
    if unknown:
        raise RetargetError(f"{bvh.source}: joint map: {', '.join(map(repr, unknown))} "
                            f"{'is not a node' if len(unknown) == 1 else 'are not nodes'} "
                            f"of the humanoid (nodes: {', '.join(MAPPED)})")
    by_key: dict[str, int] = {}
    for i, name in enumerate(point_names(bvh)):
        by_key.setdefault(_key(name), i)
    best: tuple[int, str, dict[str, int], dict[str, tuple[str, ...]]] | None = None
    for convention, names in CONVENTIONS.items():
        found: dict[str, int] = {}
        tried: dict[str, tuple[str, ...]] = {}
        for node in MAPPED:
            tries = (given[node],) if node in given else names[node]
            hit = next((by_key[_key(n)] for n in tries if _key(n) in by_key), None)
            if hit is None:
                tried[node] = tries
            else:
                found[node] = hit
        if best is None or len(found) > best[0]:
            best = (len(found), convention, found, tried)
    assert best is not None
    _, convention, found, tried = best
    if given and not tried:
        convention = "joint map" if len(given) == len(MAPPED) else f"{convention} + joint map"
    if tried:
        where = {node: _below(bvh, found, node) for node in tried}
        listed = "; ".join(f"{node} (tried {', '.join(tries)}; expected below "
                           f"{bvh.names[where[node]]!r}, line {bvh.lines[where[node]]})"
                           for node, tries in tried.items())
        first = bvh.lines[where[next(iter(tried))]]
        shown = ", ".join(bvh.names[:SHOWN]) + (f" ... ({len(bvh.names)} in all)"
                                                if len(bvh.names) > SHOWN else "")
        raise RetargetError(
            f"{bvh.source}:{first}: the skeleton matches no known convention; the closest, "
            f"{convention}, has {len(found)} of {len(MAPPED)} humanoid nodes and misses "
            f"{len(tried)}: {listed}. Joints found: {shown}. Give the missing "
            "ones in a joint map: {node: joint name}")
    return convention, found


_PARENT = {"head": "neck", "neck": "chest", "chest": "hips", "l_shoulder": "chest",
           "r_shoulder": "chest", "l_elbow": "l_shoulder", "r_elbow": "r_shoulder",
           "l_hand": "l_elbow", "r_hand": "r_elbow", "l_hip": "hips", "r_hip": "hips",
           "l_knee": "l_hip", "r_knee": "r_hip", "l_foot": "l_knee", "r_foot": "r_knee"}
"""Node -> the node whose joint a skeleton puts above its joint (arms hang from the chest,
through a clavicle joint in most files; ``hips`` is the file's root)."""


def _below(bvh: Bvh, found: Mapping[str, int], node: str) -> int:
    """The joint of ``bvh`` below which ``node``'s joint belongs: that of its nearest
    ancestor in :data:`_PARENT` that the file has (as a joint, not an End Site), or the
    file's root."""
    parent = _PARENT[node]
    while parent != "hips" and (parent not in found or found[parent] >= len(bvh.names)):
        parent = _PARENT[parent]
    return found[parent] if parent != "hips" else int(np.flatnonzero(bvh.parents < 0)[0])


def unit_of(leg: float) -> tuple[str, float]:
    """The unit (name, metres per unit) in which a leg (hip to ankle) of ``leg`` file units
    is nearest a :data:`LEG_M` leg, by ratio."""
    ratios = [abs(np.log(max(leg, 1e-12) * m / LEG_M)) for _, m in UNITS]
    return UNITS[int(np.argmin(ratios))]


def rest_pose_of(shoulder: np.ndarray, elbow: np.ndarray, up: np.ndarray) -> str:
    """``"T"``, ``"A"`` or ``"arms down"`` from the rest positions (3,) of a shoulder and its
    elbow and the skeleton's up direction (3,)."""
    arm = elbow - shoulder
    cos = float(-arm @ up / max(np.linalg.norm(arm) * np.linalg.norm(up), 1e-12))
    angle = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
    return "T" if angle > 65 else "A" if angle >= 25 else "arms down"
