"""Where an exported skeleton's joints should be, from the recorded nodes alone.

Independent of the exporter's code: the joint names animation tools expect and the node each
joint sits on, and how far the simulation stretched the links from the hips to each joint
(exported bones are rigid, so a joint may be off its node by that much), and how far the
pelvis slides along the hip line (the braces holding it stretching unequally).
"""

from __future__ import annotations

import numpy as np

BVH_JOINTS = ["Hips", "Spine", "Chest", "Neck", "Head", "LeftShoulder", "LeftArm",
              "LeftForeArm", "LeftHand", "RightShoulder", "RightArm", "RightForeArm",
              "RightHand", "LeftUpLeg", "LeftLeg", "LeftFoot", "RightUpLeg", "RightLeg",
              "RightFoot"]
SITS_ON = {"Hips": "hips", "Spine": "pelvis", "Chest": "chest", "Neck": "neck", "Head": "head",
           "LeftShoulder": "neck", "LeftArm": "l_shoulder", "LeftForeArm": "l_elbow",
           "LeftHand": "l_hand", "RightShoulder": "neck", "RightArm": "r_shoulder",
           "RightForeArm": "r_elbow", "RightHand": "r_hand", "LeftUpLeg": "l_hip",
           "LeftLeg": "l_knee", "LeftFoot": "l_foot", "RightUpLeg": "r_hip",
           "RightLeg": "r_knee", "RightFoot": "r_foot"}
"""The node each joint sits on ("hips": halfway between the hip nodes)."""


def simulated_joints(recording, character: str) -> np.ndarray:
    """(F, J, 3) where the joints should be, metres, from the recorded node positions."""
    arrays = recording.arrays()
    names = list(arrays["node_name"])
    pos = arrays["pos"]

    def node(n: str) -> np.ndarray:
        if n == "hips":
            return 0.5 * (node("l_hip") + node("r_hip"))
        return pos[:, names.index(f"{character}/{n}")]

    return np.stack([node(SITS_ON[j]) for j in BVH_JOINTS], axis=1)


def pelvis_slide(recording, character: str) -> np.ndarray:
    """(F,) how far the pelvis node is off the plane halfway between the hip nodes, metres:
    zero at rest, it slides along the hip line where the two braces that hold it stretch
    unequally (Spine sits on it; a rigid Hips frame keeps it on that plane)."""
    arrays = recording.arrays()
    names = list(arrays["node_name"])
    pos = arrays["pos"]
    left, right, pelvis = (pos[:, names.index(f"{character}/{n}")]
                           for n in ("l_hip", "r_hip", "pelvis"))
    across = (left - right) / np.linalg.norm(left - right, axis=-1, keepdims=True)
    return np.abs(np.sum((pelvis - 0.5 * (left + right)) * across, axis=-1))


def chain_stretch(joints: np.ndarray, parent: list[int], bone: np.ndarray) -> np.ndarray:
    """(F, J) sum over the bones from the root to each joint of |simulated length - bone
    length|, for joints (F, J, 3), parent indices (-1 for the root) and bone lengths (J,)."""
    stretch = np.zeros(joints.shape[:2])
    for j in range(1, joints.shape[1]):
        length = np.linalg.norm(joints[:, j] - joints[:, parent[j]], axis=-1)
        stretch[:, j] = stretch[:, parent[j]] + np.abs(length - bone[j])
    return stretch
