"""Motion clips: node paths of the 16-node humanoid over time, from BVH files or recorded.

A :class:`Clip` holds positions (F, 16, 3) in metres, in :data:`NODE_NAMES` order, sampled
at ``fps``, for a figure of a given build (height and preset). It is what the kinematic
controllers play and the motion graph cuts up. Clips come from BVH files (any standard
hierarchy, retargeted by :mod:`twig.hybrid.retarget`), from twig's own characters
(:class:`ClipRecorder`), or from the shipped library (:mod:`twig.hybrid.library`); they are
saved as BVH with twig's exporter.

A looping clip's last frame is its first pose one cycle on: playing past the end carries on
from there (translated and turned as the cycle moved the figure).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from os import PathLike
from pathlib import Path

import numpy as np

from twig.bodies.humanoid import NODE_NAMES
from twig.errors import TwigError
from twig.hybrid.bvh import load_bvh
from twig.hybrid.retarget import Retargeting, rebuild, rest_nodes, retargeting
from twig.hybrid.similarity import features, heading, root, similarity, yaw_matrix


class ClipError(TwigError):
    """A clip cannot be made, found or played (names the clip and what was expected)."""


@dataclass(frozen=True, eq=False)
class Clip:
    """A humanoid motion.

    Attributes
    ----------
    name
        What to call it (``"walk"``).
    nodes
        (F, 16, 3) node positions, metres, NODE_NAMES order, F >= 2.
    fps
        Frames per second.
    loop
        The last frame is the first pose one cycle later (walk, run, idle).
    height, preset
        The build the positions fit (a character of another build plays :meth:`fit`).
    retargeting
        For a clip read from a file: how it was read (convention, joint map, units, rest
        pose, floor); None otherwise.
    """

    name: str
    nodes: np.ndarray
    fps: float = 30.0
    loop: bool = False
    height: float = 1.75
    preset: str = "adult"
    retargeting: Retargeting | None = None

    def __post_init__(self) -> None:
        n = np.asarray(self.nodes, dtype=np.float64)
        if n.ndim != 3 or n.shape[1:] != (len(NODE_NAMES), 3) or len(n) < 2:
            raise ClipError(f"clip {self.name!r}: nodes must have shape (F >= 2, 16, 3), "
                            f"got {n.shape}")
        if not np.isfinite(n).all():
            raise ClipError(f"clip {self.name!r}: node positions must be finite")
        if not (self.fps > 0 and np.isfinite(self.fps)):
            raise ClipError(f"clip {self.name!r}: fps must be positive, got {self.fps!r}")
        n.flags.writeable = False
        object.__setattr__(self, "nodes", n)

    @property
    def frames(self) -> int:
        return len(self.nodes)

    @property
    def duration(self) -> float:
        """Seconds from the first frame to the last (one cycle for a loop)."""
        return (self.frames - 1) / self.fps

    @property
    def velocities(self) -> np.ndarray:
        """(F, 16, 3) node velocities, m/s, by finite differences (central inside; a loop's
        ends use the next cycle)."""
        return _velocities(self)

    @property
    def features(self) -> tuple[np.ndarray, np.ndarray]:
        """Root-relative poses and velocities of every frame (for eq. 1)."""
        return _features(self)

    def cycle_transform(self) -> tuple[float, np.ndarray]:
        """For a loop: the turn (rad about +y) and ground translation (3,) that take the first
        frame's root to the last's; (0, 0) for a clip that does not loop."""
        return _cycle(self)

    def pose(self, t: float) -> np.ndarray:
        """Node positions (16, 3) at ``t`` seconds, in the clip's space: linear between
        frames; a loop goes on cycle after cycle, a clip that does not loop holds its last
        frame."""
        period = self.duration
        cycles = 0
        if self.loop:
            cycles = int(np.floor(t / period))
            t -= cycles * period
        u = min(max(t, 0.0), period) * self.fps
        k = min(int(u), self.frames - 2)
        s = u - k
        p = (1.0 - s) * self.nodes[k] + s * self.nodes[k + 1]
        if cycles:
            turn, shift = self.cycles(cycles)
            p = p @ yaw_matrix(turn).T + shift
        return p

    def cycles(self, n: int) -> tuple[float, np.ndarray]:
        """The turn and shift after ``n`` cycles (any integer): ``T^n`` of the cycle's
        ``T(x) = R x + m`` in closed form, ``R^n x + (I - R)^-1 (I - R^n) m``."""
        a, move = self.cycle_transform()
        if abs(a) < 1e-12:
            return n * a, n * move
        one, nth = yaw_matrix(a)[::2, ::2], yaw_matrix(n * a)[::2, ::2]  # the x-z plane
        xz = np.linalg.solve(np.eye(2) - one, (np.eye(2) - nth) @ move[::2])
        return n * a, np.array([xz[0], 0.0, xz[1]])

    def fit(self, height: float, preset: str = "adult") -> Clip:
        """This motion on a figure of ``height`` (m) and ``preset``: bone directions kept,
        lengths the figure's, the root's path scaled by the ratio of leg lengths."""
        if np.isclose(height, self.height) and preset == self.preset:
            return self
        mine, theirs = rest_nodes(self.height, self.preset), rest_nodes(height, preset)
        scale = _leg_length(theirs) / _leg_length(mine)
        hips = 0.5 * (self.nodes[:, 10] + self.nodes[:, 13])
        nodes = rebuild(np.array(self.nodes), theirs, hips * scale)
        return replace(self, nodes=nodes, height=height, preset=preset)

    def best_frame(self, pos: np.ndarray, vel: np.ndarray) -> tuple[int, float]:
        """The frame most like the pose ``pos`` with velocities ``vel`` ((16, 3) each, world
        space) and its eq. 1 similarity (m)."""
        fp, fv = features(pos[None], vel[None])
        cp, cv = self.features
        s = similarity(fp[0], fv[0], cp, cv)
        k = int(np.argmin(s))
        return k, float(s[k])


@lru_cache(maxsize=64)
def _velocities(clip: Clip) -> np.ndarray:
    p = clip.nodes
    v = np.empty_like(p)
    v[1:-1] = (p[2:] - p[:-2]) * (0.5 * clip.fps)
    if clip.loop and clip.frames > 2:
        after = clip.pose((clip.frames - 1 + 1) / clip.fps)
        v[0] = v[-1] = (after - p[-2]) * (0.5 * clip.fps)
    else:
        v[0] = (p[1] - p[0]) * clip.fps
        v[-1] = (p[-1] - p[-2]) * clip.fps
    v.flags.writeable = False
    return v


@lru_cache(maxsize=64)
def _cycle(clip: Clip) -> tuple[float, np.ndarray]:
    if not clip.loop:
        return 0.0, np.zeros(3)
    a = float(heading(clip.nodes[-1]) - heading(clip.nodes[0]))
    return a, root(clip.nodes[-1]) - yaw_matrix(a) @ root(clip.nodes[0])


@lru_cache(maxsize=64)
def _features(clip: Clip) -> tuple[np.ndarray, np.ndarray]:
    return features(clip.nodes, clip.velocities)


def _leg_length(rest: np.ndarray) -> float:
    return float(np.linalg.norm(rest[11] - rest[10]) + np.linalg.norm(rest[12] - rest[11]))


def load_clip(path: str | PathLike, name: str | None = None, loop: bool = False,
              joint_map: Mapping[str, str] | None = None, floor: float | None = None,
              height: float = 1.75, preset: str = "adult") -> Clip:
    """A clip from a BVH file, retargeted to a humanoid of ``height`` and ``preset`` (see
    :func:`twig.hybrid.retarget.retarget` for ``joint_map`` and ``floor``).

    Raises
    ------
    BvhError
        The file is not valid BVH (names the line).
    RetargetError
        No naming convention (with ``joint_map``) gives every node (lists what is missing).
    """
    bvh = load_bvh(path)
    nodes, report = retargeting(bvh, height, preset, joint_map, floor)
    if len(nodes) < 2:
        raise ClipError(f"{bvh.source}: a clip needs at least 2 frames, got {len(nodes)}")
    return Clip(name or Path(path).stem, nodes, 1.0 / bvh.frame_time, loop, height, preset,
                report)


def save_clip(clip: Clip, path: str | PathLike) -> Path:
    """Write ``clip`` as a BVH file with twig's exporter (joints Hips, Spine, Chest...,
    centimetres, ZXY, a rigid skeleton); returns the path."""
    from twig.export.bvh import bvh_text
    from twig.export.files import as_path, write_files
    from twig.export.recording import RecordedBody

    target = as_path(path, ".bvh")
    body = RecordedBody(clip.name, "humanoid", {"height": clip.height, "preset": clip.preset},
                        NODE_NAMES, np.arange(len(NODE_NAMES)))
    t = np.arange(clip.frames) / clip.fps
    # A rigid skeleton, so that the files stay small (rotations only below the root): a clip
    # read back has the figure's rest lengths, its links' stretch is not kept.
    head, motion = bvh_text(body, t, np.array(clip.nodes), 1.0 / clip.fps, None,
                            stretch=False).split("Frame Time:", 1)
    frame_time, rows = motion.split("\n", 1)
    short = "\n".join(" ".join(f"{float(v):.3f}".rstrip("0").rstrip(".") for v in row.split())
                      for row in rows.splitlines())
    text = f"{head}Frame Time:{frame_time}\n{short}\n"
    return write_files({target: text.replace(" -0 ", " 0 ").encode()})[0]


class ClipRecorder:
    """Records a character's own simulated motion as a clip: every ``every`` ticks (2 gives
    30 fps at twig's 60 Hz), from now until :meth:`clip`.

    >>> import twig
    >>> from twig.hybrid import ClipRecorder
    >>> world = twig.World(seed=0)
    >>> kid = world.add_humanoid("kid")
    >>> recorder = ClipRecorder(kid)
    >>> world.run(seconds=1)
    >>> recorder.clip("stand").frames
    31
    """

    def __init__(self, character, every: int = 2) -> None:
        if not (isinstance(every, int) and every >= 1):
            raise ClipError(f"every must be a positive whole number of ticks, got {every!r}")
        self.character = character
        self.world = character.world
        self.every = every
        self._start = self.world.tick
        self._frames = [self.world.node_pos[character.nodes].copy()]
        self.world.stages.add("record", self._capture)

    def _capture(self) -> None:
        if (self.world.tick - self._start) % self.every == 0:
            self._frames.append(self.world.node_pos[self.character.nodes].copy())

    def stop(self) -> None:
        """Stop recording (the frames so far are kept)."""
        self.world.stages.remove("record", self._capture)

    def clip(self, name: str, loop: bool = False, start: float = 0.0) -> Clip:
        """The frames recorded so far (from ``start`` seconds in) as a clip."""
        meta = self.world.body_record(self.character.id).meta
        first = round(start * self.world_fps)
        return Clip(name, np.array(self._frames[first:]), self.world_fps, loop,
                    float(meta["height"]), str(meta.get("preset", "adult")))

    @property
    def world_fps(self) -> float:
        """Frames per second of the recording."""
        return 1.0 / (self.every * self.world.dt)


def loop_cut(clip: Clip, shortest: float, longest: float) -> Clip:
    """The cycle of ``clip`` that loops best: frames ``i..j`` (``shortest`` to ``longest``
    seconds apart) whose end is most like its start by eq. 1, as a looping clip."""
    pos, vel = clip.features
    best = (np.inf, 0, 0)
    lo, hi = round(shortest * clip.fps), round(longest * clip.fps)
    for i in range(clip.frames - lo):
        js = np.arange(i + lo, min(i + hi, clip.frames - 1) + 1)
        if not len(js):
            break
        s = similarity(pos[i], vel[i], pos[js], vel[js])
        k = int(np.argmin(s))
        if s[k] < best[0]:
            best = (float(s[k]), i, int(js[k]))
    if not np.isfinite(best[0]):
        raise ClipError(f"clip {clip.name!r} ({clip.duration:.2f} s) is too short for a "
                        f"cycle of {shortest:g} s or more")
    _, i, j = best
    return replace(clip, nodes=np.array(clip.nodes[i:j + 1]), loop=True)
