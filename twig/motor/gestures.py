"""Gestures (Horswill 2009, VII.E and XI.B): key-framed hand positions played on a character.

A gesture file (TOML) gives key frames of hand positions in a torso-centred frame (``right``,
``up``, ``forward`` of the character's shoulders) normalised to the size of a body part, so one
file plays on an adult and on a child::

    description = "wave hello with one hand"
    frame = "arm"        # arm: from that side's shoulder, in arm lengths
                         # torso: from between the shoulders, in torso lengths (hips to neck)
                         # head: from the head, in head lengths (neck to head)
    hand = "right"       # one-handed: the hand it was written for (mirrored for the other)
    [[key]]
    t = 0.0              # seconds
    right = [0.45, 0.55, 0.25]
    [[key]]
    t = 0.35
    right = [0.2, 0.75, 0.25]

Built-in gestures ship in ``twig/motor/gestures/``; any ``.toml`` path works too.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from twig.action import Action
from twig.bodies.frames import shoulder_frame
from twig.errors import TwigError
from twig.motor.arms import ArmTask

if TYPE_CHECKING:
    from twig.motor.character import Character

FRAMES = ("arm", "torso", "head")


class GestureError(TwigError):
    """A gesture file is missing, malformed, or names a field wrongly (file and field named)."""


@dataclass(frozen=True)
class Gesture:
    """A parsed gesture: key times (s), per hand (F, 3) positions in its frame's units."""

    name: str
    description: str
    frame: str
    hand: str | None
    times: np.ndarray
    keys: dict[str, np.ndarray]


def builtin_gestures() -> list[str]:
    """Names of the gestures that ship with twig."""
    folder = resources.files("twig.motor") / "gestures"
    return sorted(f.name[:-5] for f in folder.iterdir() if f.name.endswith(".toml"))


def load_gesture(name: str | Path) -> Gesture:
    """Load a built-in gesture by name or a gesture file by ``.toml`` path."""
    path = Path(name)
    if path.suffix != ".toml":
        path = Path(str(resources.files("twig.motor") / "gestures" / f"{name}.toml"))
        if not path.is_file():
            raise GestureError(f"no gesture {str(name)!r} (built-in: "
                               f"{', '.join(builtin_gestures())}; or give a .toml path)")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise GestureError(f"{path}: cannot read gesture: {e}") from None
    return _parse(path, data)


def _parse(path: Path, data: dict) -> Gesture:
    where = str(path)
    unknown = sorted(set(data) - {"description", "frame", "hand", "key"})
    if unknown:
        raise GestureError(f"{where}: unknown field {unknown[0]!r} "
                           "(known: description, frame, hand, key)")
    frame = data.get("frame", "arm")
    if frame not in FRAMES:
        raise GestureError(f"{where}: field 'frame': expected one of {', '.join(FRAMES)}, "
                           f"got {frame!r}")
    hand = data.get("hand")
    if hand not in (None, "left", "right"):
        raise GestureError(f"{where}: field 'hand': expected left or right, got {hand!r}")
    keys = data.get("key")
    if not isinstance(keys, list) or len(keys) < 2:
        raise GestureError(f"{where}: needs at least two [[key]] tables")
    hands = [h for h in ("left", "right") if h in keys[0]]
    if not hands:
        raise GestureError(f"{where}: [[key]] #1: needs a 'left' or 'right' position")
    times, pos = [], {h: [] for h in hands}
    for k, key in enumerate(keys, start=1):
        at = f"{where}: [[key]] #{k}"
        if not isinstance(key, dict):
            raise GestureError(f"{at}: expected a table")
        t = key.get("t")
        if not isinstance(t, int | float) or isinstance(t, bool) or (times and t <= times[-1]):
            raise GestureError(f"{at}: field 't': expected a time in seconds after the last "
                               f"key's, got {t!r}")
        times.append(float(t))
        for h in hands:
            p = key.get(h)
            if not (isinstance(p, list) and len(p) == 3
                    and all(isinstance(v, int | float) for v in p)):
                raise GestureError(f"{at}: field {h!r}: expected [right, up, forward] numbers, "
                                   f"got {p!r}")
            pos[h].append(p)
    return Gesture(path.stem, str(data.get("description", "")), frame, hand,
                   np.array(times), {h: np.array(v, dtype=float) for h, v in pos.items()})


class Play(ArmTask):
    """Drive the hands through a gesture's key frames (smoothly between keys), then let the
    arms hang again."""

    def __init__(self, who: Character, action: Action, gesture: Gesture,
                 mapping: dict[str, str], loops: int) -> None:
        super().__init__(who, action, tuple(mapping.values()))
        self.gesture = gesture
        self.mapping = mapping  # gesture hand -> the character's hand
        self.duration = float(gesture.times[-1]) * loops

    def _point(self, hand: str, local: np.ndarray) -> np.ndarray:
        who = self.who
        frame = shoulder_frame(who)
        x, y, z = local
        if self.mapping[hand] != hand:
            x = -x  # mirrored onto the other hand
        axes = x * frame.right + y * frame.up + z * frame.forward
        if self.gesture.frame == "arm":
            side = self.mapping[hand][0]
            return who.node_position(f"{side}_shoulder") + who.arm_length * axes
        if self.gesture.frame == "torso":
            torso = float(np.linalg.norm(who.node_position("neck") - who.hips))
            return frame.origin + torso * axes
        head = float(np.linalg.norm(who.node_position("head") - who.node_position("neck")))
        return who.node_position("head") + head * axes

    def update(self) -> None:
        times = self.gesture.times
        t = self.elapsed % times[-1] if self.elapsed < self.duration else times[-1]
        k = int(np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 2))
        u = (t - times[k]) / (times[k + 1] - times[k])
        u = u * u * (3.0 - 2.0 * u)
        for hand, side in self.mapping.items():
            keys = self.gesture.keys[hand]
            self.drive(side, self._point(hand, keys[k] + u * (keys[k + 1] - keys[k])), speed=3.0)

    def check(self) -> None:
        super().check()
        if self.elapsed >= self.duration:
            for side in self.hands:
                self.free(side)
            self.action.succeed()
