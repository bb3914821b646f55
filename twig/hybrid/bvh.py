"""Reading BVH motion files: any standard Biovision hierarchy, with errors that name the line.

A BVH file has a ``HIERARCHY`` (``ROOT``/``JOINT`` blocks with an ``OFFSET``, ``CHANNELS`` and
children, ``End Site`` leaves) and a ``MOTION`` section (``Frames:``, ``Frame Time:`` and one
line of channel values per frame). Rotation channels apply in the order listed
(``Zrotation Xrotation Yrotation`` means ``R = Rz @ Rx @ Ry``) in degrees; position channels
replace the offset's components. Files from twig's exporter, CMU's mocap conversions, Mixamo,
Blender and MotionBuilder all read the same way.

Forward kinematics (:func:`joint_positions`) gives every joint's world position per frame in
the file's units, vectorised over frames.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path

import numpy as np

from twig.errors import TwigError

CHANNEL_NAMES = ("Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation")
"""The channel names a BVH file may use (case as written in files; matched case-insensitively)."""


class BvhError(TwigError):
    """A BVH file does not follow the format: names the file, the line and what was expected."""


@dataclass(frozen=True)
class Bvh:
    """A parsed BVH file.

    Attributes
    ----------
    names
        (J,) joint names in file order (depth first).
    parents
        (J,) index of each joint's parent, -1 for the root.
    offsets
        (J, 3) offset of each joint from its parent, in the file's units.
    channels
        Per joint, its channel names (``"Xposition"``... ``"Zrotation"``), in file order.
    end_sites
        Joint index -> (3,) offset of its End Site.
    motion
        (F, C) channel values per frame (C = total channels), positions in file units, angles
        in degrees.
    frame_time
        Seconds per frame.
    lines
        (J,) line of the file (from 1) on which each joint is declared (for messages).
    source
        The file name (for messages).
    """

    names: tuple[str, ...]
    parents: np.ndarray
    offsets: np.ndarray
    channels: tuple[tuple[str, ...], ...]
    end_sites: dict[int, np.ndarray]
    motion: np.ndarray
    frame_time: float
    lines: tuple[int, ...]
    source: str = "<bvh>"

    @property
    def frames(self) -> int:
        return len(self.motion)

    def index(self, name: str) -> int:
        """Index of joint ``name`` (exact)."""
        return self.names.index(name)


_TOKEN = re.compile(r"\S+")


class _Tokens:
    """Whitespace-separated tokens with their line numbers, read one at a time."""

    def __init__(self, text: str, source: str) -> None:
        self.lines = text.splitlines()
        self.source = source
        self.items: list[tuple[str, int]] = []
        self.pos = 0
        self.motion_line = len(self.lines)
        for n, line in enumerate(self.lines, start=1):
            if line.strip().upper() == "MOTION":
                self.items.append(("MOTION", n))
                self.motion_line = n
                break
            self.items.extend((m.group(), n) for m in _TOKEN.finditer(line))

    def error(self, expected: str, got: str | None = None, line: int | None = None) -> BvhError:
        if line is None:  # at the end of the file: its last line (line 1 of an empty one)
            line = self.items[self.pos][1] if self.pos < len(self.items) \
                else max(len(self.lines), 1)
        if got is None:
            got = repr(self.items[self.pos][0]) if self.pos < len(self.items) else "end of file"
        return BvhError(f"{self.source}:{line}: expected {expected}, got {got}")

    def take(self, expected: str | None = None, what: str | None = None) -> tuple[str, int]:
        if self.pos >= len(self.items):
            raise self.error(what or repr(expected))
        word, line = self.items[self.pos]
        if expected is not None and word.upper() != expected.upper():
            raise self.error(what or repr(expected))
        self.pos += 1
        return word, line

    def peek(self) -> str:
        return self.items[self.pos][0] if self.pos < len(self.items) else ""

    def number(self, what: str) -> float:
        word, line = self.take(what=what)
        try:
            value = float(word)
        except ValueError:
            self.pos -= 1
            raise self.error(what) from None
        if not np.isfinite(value):
            raise self.error(what, repr(word), line)
        return value


def parse_bvh(text: str, source: str = "<bvh>") -> Bvh:
    """Parse BVH ``text``; ``source`` names the file in error messages.

    Raises
    ------
    BvhError
        ``source:line: expected ..., got ...`` for anything out of place: a missing brace or
        keyword, an unknown channel name, a count that does not match, a number that is not
        one, or a MOTION section with fewer frames or values than it declares.
    """
    tok = _Tokens(text, source)
    tok.take("HIERARCHY")
    joints = _Joints()
    tok.take("ROOT")
    _joint(tok, -1, joints)
    if tok.peek().upper() != "MOTION":
        raise tok.error("'MOTION' after the hierarchy's closing brace")
    motion, frame_time = _motion(tok, sum(len(c) for c in joints.channels))
    return Bvh(tuple(joints.names), np.array(joints.parents, dtype=np.int64),
               np.array(joints.offsets, dtype=np.float64).reshape(-1, 3),
               tuple(joints.channels), joints.ends, motion, frame_time, tuple(joints.lines),
               source)


@dataclass
class _Joints:
    """The hierarchy as it is read: one entry per joint, in file order."""

    names: list[str] = field(default_factory=list)
    parents: list[int] = field(default_factory=list)
    offsets: list[tuple[float, ...]] = field(default_factory=list)
    channels: list[tuple[str, ...]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    ends: dict[int, np.ndarray] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)


def _joint(tok: _Tokens, parent: int, joints: _Joints) -> None:
    """One ROOT block (its keyword already taken) and every joint below it, depth first.

    Iterative (a stack of the joints still open), so that however deep the hierarchy (a
    chain of thousands of joints) it is read, or refused at its line, without running out
    of Python's recursion depth."""
    open_joints: list[tuple[int, str]] = []
    _joint_head(tok, parent, joints, open_joints)
    while open_joints:
        index, name = open_joints[-1]
        word = tok.peek().upper()
        if word == "JOINT":
            tok.take()
            _joint_head(tok, index, joints, open_joints)
        elif word == "END":
            tok.take()
            tok.take("Site")
            tok.take("{")
            tok.take("OFFSET")
            joints.ends[index] = np.array([tok.number("an OFFSET number") for _ in range(3)])
            tok.take("}")
        elif word == "}":
            tok.take()
            open_joints.pop()
        else:
            raise tok.error(f"'JOINT', 'End Site' or '}}' closing joint {name!r}")


def _joint_head(tok: _Tokens, parent: int, joints: _Joints,
                open_joints: list[tuple[int, str]]) -> None:
    """A joint's name, ``{``, OFFSET and CHANNELS (its keyword already taken); the joint is
    then open, its children and closing brace to come."""
    name, line = tok.take(what="a joint name")
    if name in ("{", "}"):
        tok.pos -= 1
        raise tok.error("a joint name")
    if name in joints.seen:
        tok.pos -= 1
        raise tok.error(f"a joint name not used before (two joints are called {name!r})")
    joints.seen.add(name)
    index = len(joints.names)
    joints.names.append(name)
    joints.parents.append(parent)
    joints.lines.append(line)
    tok.take("{")
    tok.take("OFFSET")
    joints.offsets.append(tuple(tok.number("an OFFSET number") for _ in range(3)))
    tok.take("CHANNELS")
    _, line = tok.items[tok.pos - 1]
    count = tok.number("the number of channels")
    if count != int(count) or not 0 <= count <= 6:
        raise tok.error("a channel count from 0 to 6", repr(tok.items[tok.pos - 1][0]), line)
    found = []
    for _ in range(int(count)):
        word, _ = tok.take(what="a channel name (Xposition ... Zrotation)")
        canonical = next((c for c in CHANNEL_NAMES if c.lower() == word.lower()), None)
        if canonical is None or canonical in found:
            tok.pos -= 1
            raise tok.error(f"{'a channel named once' if canonical else 'a channel name'} "
                            f"(one of {', '.join(CHANNEL_NAMES)})")
        found.append(canonical)
    joints.channels.append(tuple(found))
    open_joints.append((index, name))


def _motion(tok: _Tokens, n_channels: int) -> tuple[np.ndarray, float]:
    """The MOTION section: header lines, then ``Frames`` lines of ``n_channels`` numbers."""
    lines = tok.lines
    src = tok.source
    n = tok.motion_line  # 1-based line of MOTION; following lines are lines[n:]
    header = [(k + 1, line) for k, line in enumerate(lines[n:], start=n) if line.strip()]
    values = {}
    for key, pattern in (("Frames", r"frames\s*:\s*(\S+)$"),
                         ("Frame Time", r"frame\s+time\s*:\s*(\S+)$")):
        if not header:
            raise BvhError(f"{src}:{len(lines)}: expected '{key}: <number>', got end of file")
        line_no, line = header.pop(0)
        m = re.match(pattern, line.strip(), re.IGNORECASE)
        try:
            values[key] = float(m.group(1)) if m else None
        except ValueError:
            values[key] = None
        if values[key] is None:
            raise BvhError(f"{src}:{line_no}: expected '{key}: <number>', got {line.strip()!r}")
    frames, frame_time = values["Frames"], values["Frame Time"]
    if frames != int(frames) or frames < 1:
        raise BvhError(f"{src}:{n + 1}: expected a positive whole number of frames, "
                       f"got {frames:g}")
    if not (frame_time > 0 and np.isfinite(frame_time)):
        raise BvhError(f"{src}:{n + 2}: expected a positive frame time, got {frame_time:g}")
    frames = int(frames)
    if len(header) < frames:
        last = header[-1][0] if header else n + 2
        raise BvhError(f"{src}:{last}: expected {frames} frames of motion (as 'Frames' "
                       f"declares), got {len(header)}: the file is truncated")
    motion = np.empty((frames, n_channels))
    for f, (line_no, line) in enumerate(header[:frames]):
        words = line.split()
        if len(words) != n_channels:
            raise BvhError(f"{src}:{line_no}: expected {n_channels} channel values in frame "
                           f"{f + 1}, got {len(words)}")
        try:
            motion[f] = [float(w) for w in words]
        except ValueError:
            bad = next(w for w in words if not _is_float(w))
            raise BvhError(f"{src}:{line_no}: expected a number in frame {f + 1}, "
                           f"got {bad!r}") from None
        if not np.isfinite(motion[f]).all():
            raise BvhError(f"{src}:{line_no}: expected finite numbers in frame {f + 1}")
    if len(header) > frames:
        raise BvhError(f"{src}:{header[frames][0]}: expected the end of the file after "
                       f"{frames} frames (as 'Frames' declares), got more lines")
    return motion, float(frame_time)


def _is_float(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def load_bvh(path: str | PathLike) -> Bvh:
    """Read and parse the BVH file at ``path`` (see :func:`parse_bvh`)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="strict")
    except (OSError, UnicodeDecodeError) as e:
        raise BvhError(f"{p}: cannot read BVH file: {e}") from None
    return parse_bvh(text, str(p))


def _axis_rotations(axis: int, angle: np.ndarray) -> np.ndarray:
    """Rotation matrices (F, 3, 3) about x, y or z (``axis`` 0, 1, 2) by ``angle`` (F,) rad."""
    c, s = np.cos(angle), np.sin(angle)
    m = np.zeros((len(angle), 3, 3))
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    m[:, axis, axis] = 1.0
    m[:, i, i] = c
    m[:, j, j] = c
    m[:, i, j] = -s
    m[:, j, i] = s
    return m


def joint_transforms(bvh: Bvh) -> tuple[np.ndarray, np.ndarray]:
    """World positions (F, J, 3) (file units) and rotations (F, J, 3, 3) of every joint."""
    F, J = bvh.frames, len(bvh.names)
    pos = np.empty((F, J, 3))
    rot = np.empty((F, J, 3, 3))
    col = 0
    for j in range(J):
        local_t = np.broadcast_to(bvh.offsets[j], (F, 3)).copy()
        local_r = np.broadcast_to(np.eye(3), (F, 3, 3)).copy()
        for name in bvh.channels[j]:
            axis = "XYZ".index(name[0])
            values = bvh.motion[:, col]
            col += 1
            if name.endswith("position"):
                local_t[:, axis] = values
            else:
                local_r = local_r @ _axis_rotations(axis, np.radians(values))
        p = bvh.parents[j]
        if p < 0:
            pos[:, j], rot[:, j] = local_t, local_r
        else:
            pos[:, j] = pos[:, p] + np.einsum("fij,fj->fi", rot[:, p], local_t)
            rot[:, j] = rot[:, p] @ local_r
    return pos, rot


def joint_positions(bvh: Bvh) -> np.ndarray:
    """World positions (F, J, 3) of every joint per frame, in the file's units."""
    return joint_transforms(bvh)[0]


def rest_positions(bvh: Bvh) -> np.ndarray:
    """Positions (J, 3) of every joint in the file's rest pose (the ``OFFSET`` values summed
    down the hierarchy, no channel applied), in the file's units."""
    out = np.array(bvh.offsets, dtype=np.float64)
    for j, parent in enumerate(bvh.parents):  # parents come before their children
        if parent >= 0:
            out[j] += out[parent]
    return out
