"""A motion graph (Kovar, Gleicher and Pighin 2002, as DANCE section 2.11 uses it).

"The transition between the motions are the local minima of pair-wise motion disparity maps.
To synthesize a new motion, we use as query a sequence of control points that defines a
cardinal spline. The search is performed following a branch and bound strategy with limited
horizon. At each step of the search the current motion candidate is compared to the input
cardinal spline."

The graph's nodes are frames of the clips; its edges play a clip on from a frame, or jump from
frame ``i`` of one clip to frame ``j`` of another (or the same) where the eq. 1 distance
between the two frames is a local minimum of the distance matrix and under a threshold (a loop's
last frame also goes on to its first). A jump is blended over 15 frames (DANCE 2.7). The
synthesised motion is a clip in world space that a kinematic controller plays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from twig.background import JobCancelledError
from twig.hybrid.blend import WINDOW_FRAMES, smoothstep
from twig.hybrid.clip import Clip, ClipError
from twig.hybrid.similarity import distance_matrix, heading, root, yaw_matrix

SEGMENT = 10
"""Frames played between two decisions of the search."""
DEPTH = 3
"""Moves the branch-and-bound search looks ahead (3 x 10 frames: 1 s at 30 fps)."""


@dataclass(frozen=True)
class MotionGraph:
    """Clips and the jumps between their frames: ``jumps[(c, i)]`` lists ``(c2, j)``."""

    clips: tuple[Clip, ...]
    jumps: dict[tuple[int, int], tuple[tuple[int, int], ...]]

    def branch_points(self, c: int) -> np.ndarray:
        """Frames of clip ``c`` with jumps, sorted."""
        return np.array(sorted(i for cc, i in self.jumps if cc == c), dtype=np.int64)


def build_graph(clips: tuple[Clip, ...], threshold: float = 0.08) -> MotionGraph:
    """Transitions at the local minima (over the 8 neighbours) of each pair of clips'
    frame-distance matrix (eq. 1) under ``threshold`` metres; a clip's jumps to itself must
    skip at least 5 frames."""
    if len({(c.fps, c.height, c.preset) for c in clips}) > 1:
        raise ClipError("a motion graph's clips need one frame rate and one build")
    jumps: dict[tuple[int, int], list[tuple[int, int]]] = {}
    feats = [c.features for c in clips]
    for a, (pa, va) in enumerate(feats):
        for b, (pb, vb) in enumerate(feats):
            d = distance_matrix(pa, va, pb, vb)
            padded = np.pad(d, 1, constant_values=np.inf)
            neighbours = np.stack([padded[1 + di:1 + di + d.shape[0], 1 + dj:1 + dj + d.shape[1]]
                                   for di in (-1, 0, 1) for dj in (-1, 0, 1)
                                   if (di, dj) != (0, 0)])
            minima = (d <= neighbours.min(axis=0)) & (d < threshold)
            for i, j in zip(*np.nonzero(minima), strict=True):
                if a != b or abs(int(i) - int(j)) >= 5:
                    jumps.setdefault((a, int(i)), []).append((b, int(j)))
    for c, clip in enumerate(clips):
        if clip.loop:
            jumps.setdefault((c, clip.frames - 1), []).append((c, 0))
    return MotionGraph(tuple(clips), {k: tuple(v) for k, v in jumps.items()})


@lru_cache(maxsize=8)
def graph_of(names: tuple[str, ...], height: float = 1.75, preset: str = "adult"
             ) -> MotionGraph:
    """The motion graph of library clips ``names``, fitted to a build (cached)."""
    from twig.hybrid.library import library_clip

    if not names:
        raise ClipError("a motion graph needs at least one clip")
    return build_graph(tuple(library_clip(n).fit(height, preset) for n in names))


def cardinal_spline(points: np.ndarray, tension: float = 0.0, samples: int = 20) -> np.ndarray:
    """Points (M, 3) along the cardinal spline through ``points`` (K, 3), ``samples`` per
    span; ``tension`` 0 is Catmull-Rom. The end points are repeated as their own tangents'
    neighbours."""
    p = np.concatenate([points[:1], points, points[-1:]])
    s = np.linspace(0.0, 1.0, samples, endpoint=False)[:, None]
    h00, h10 = 2 * s ** 3 - 3 * s ** 2 + 1, s ** 3 - 2 * s ** 2 + s
    h01, h11 = -2 * s ** 3 + 3 * s ** 2, s ** 3 - s ** 2
    out = []
    for k in range(1, len(p) - 2):
        m0 = 0.5 * (1 - tension) * (p[k + 1] - p[k - 1])
        m1 = 0.5 * (1 - tension) * (p[k + 2] - p[k])
        out.append(h00 * p[k] + h10 * m0 + h01 * p[k + 1] + h11 * m1)
    out.append(points[-1:])
    return np.concatenate(out)


class _Path:
    """The spline as a polyline with arc lengths: where it is ``s`` metres along."""

    def __init__(self, pts: np.ndarray) -> None:
        self.pts = pts
        seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
        self.arc = np.concatenate([[0.0], np.cumsum(seg)])
        self.length = float(self.arc[-1])

    def at(self, s: np.ndarray) -> np.ndarray:
        s = np.clip(s, 0.0, self.length)
        return np.stack([np.interp(s, self.arc, self.pts[:, k]) for k in range(3)], axis=-1)


@dataclass(frozen=True)
class _State:
    """Where a candidate motion is: clip, frame, clip-to-world turn (and its transposed
    rotation ``rot_t``) and shift, metres walked."""

    clip: int
    frame: int
    turn: float
    shift: np.ndarray
    walked: float
    rot_t: np.ndarray

    @classmethod
    def at(cls, clip: int, frame: int, turn: float, shift: np.ndarray, walked: float
           ) -> _State:
        return cls(clip, frame, turn, shift, walked, yaw_matrix(turn).T)


class _Search:
    """Branch and bound over the graph with a limited horizon: every move plays
    :data:`SEGMENT` frames, jumping at most once on the way; a path is :data:`DEPTH` moves."""

    def __init__(self, graph: MotionGraph, path: _Path) -> None:
        self.graph = graph
        self.path = path
        self.roots = [root(np.array(c.nodes)) for c in graph.clips]
        self.heads = [heading(np.array(c.nodes)) for c in graph.clips]
        # Metres the root has walked by each frame: a turn and a shift keep them, so a
        # candidate's progress is a difference of two of these.
        self.arcs = [np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(r, axis=0),
                                                                     axis=1))])
                     for r in self.roots]

    def jump(self, s: _State, c2: int, j: int) -> _State:
        """Continue from frame ``j`` of clip ``c2`` where ``s`` is (root and facing kept)."""
        turn = float(s.turn + self.heads[s.clip][s.frame] - self.heads[c2][j])
        here = self.roots[s.clip][s.frame] @ s.rot_t + s.shift
        rot_t = yaw_matrix(turn).T
        return _State(c2, j, turn, here - self.roots[c2][j] @ rot_t, s.walked, rot_t)

    def play(self, s: _State, n: int) -> list[tuple[_State, int]] | None:
        """Pieces (start state, end frame) that play ``n`` frames on from ``s``, a loop going
        round from its last frame to its first; None past the end of a clip that stops."""
        pieces = []
        while n > 0:
            clip = self.graph.clips[s.clip]
            last = clip.frames - 1
            if s.frame == last:
                if not clip.loop:
                    return None
                s = self.jump(s, s.clip, 0)
            end = min(s.frame + n, last)
            pieces.append((s, end))
            n -= end - s.frame
            s = self.advance(s, end)
        return pieces

    def advance(self, s: _State, end: int) -> _State:
        arc = self.arcs[s.clip]
        return _State(s.clip, end, s.turn, s.shift, s.walked + float(arc[end] - arc[s.frame]),
                      s.rot_t)

    def moves(self, s: _State) -> list[list[tuple[_State, int]]]:
        """Each choice at ``s``: play on, or jump at one of the next SEGMENT frames."""
        out = [self.play(s, SEGMENT)]
        for k in range(SEGMENT):
            before = self.play(s, k) if k else []
            if before is None:
                break
            here = self.advance(*before[-1]) if before else s
            for c2, j in self.graph.jumps.get((here.clip, here.frame), ()):
                if (c2, j) == (here.clip, 0) and here.frame == self.graph.clips[c2].frames - 1:
                    continue  # a loop going round: playing on does that
                after = self.play(self.jump(here, c2, j), SEGMENT - k)
                if after is not None:
                    out.append(before + after)
        return [m for m in out if m is not None]

    def world_roots(self, s: _State, frames: slice) -> np.ndarray:
        return self.roots[s.clip][frames] @ s.rot_t + s.shift

    def cost(self, pieces: list[tuple[_State, int]]) -> tuple[float, _State]:
        """Deviation (summed over the frames played) from the spline point as far along,
        and the state at the end."""
        total = 0.0
        for start, end in pieces:
            pts = self.world_roots(start, slice(start.frame + 1, end + 1))
            arc = self.arcs[start.clip]
            walked = start.walked + (arc[start.frame + 1:end + 1] - arc[start.frame])
            total += float(np.linalg.norm(pts - self.path.at(walked), axis=1).sum())
        return total, self.advance(*pieces[-1])

    def best(self, s: _State) -> list[tuple[_State, int]]:
        """The first move of the cheapest path of :data:`DEPTH` moves from ``s``."""
        found: list = [np.inf, None]

        def explore(state: _State, cost: float, depth: int, first) -> None:
            if cost >= found[0]:
                return  # bound
            if depth == DEPTH or state.walked >= self.path.length:
                found[:] = [cost, first]
                return
            for move in self.moves(state):
                c, end = self.cost(move)
                explore(end, cost + c, depth + 1, first or move)

        explore(s, 0.0, 0, None)
        if found[1] is None:
            raise ClipError("the motion graph has no way on from here (a dead end)")
        return found[1]


def synthesise(graph: MotionGraph, pos: np.ndarray, vel: np.ndarray, points: ArrayLike,
               height: float, preset: str, max_seconds: float = 60.0,
               stopped: Callable[[], bool] | None = None) -> Clip:
    """A motion along the cardinal spline from the character's root through ``points``
    (K, 3; heights ignored), starting from the graph frame most like the character's pose
    ``pos`` with velocities ``vel`` (16, 3), aligned to where it stands and faces. Raises
    :class:`~twig.background.JobCancelledError` between two decisions once ``stopped()``
    is true."""
    g = graph if (graph.clips[0].height, graph.clips[0].preset) == (height, preset) else \
        build_graph(tuple(c.fit(height, preset) for c in graph.clips))
    ctrl = np.atleast_2d(np.asarray(points, dtype=np.float64))
    ctrl[:, 1] = 0.0
    path = _Path(cardinal_spline(np.concatenate([root(pos)[None], ctrl])))
    c, i = min(((c, *clip.best_frame(pos, vel)) for c, clip in enumerate(g.clips)),
               key=lambda x: x[2])[:2]
    clip = g.clips[c]
    turn = float(heading(pos) - heading(clip.nodes[i]))
    search = _Search(g, path)
    state = _State.at(c, i, turn, root(pos) - yaw_matrix(turn) @ search.roots[c][i], 0.0)
    frames = [_world(clip.nodes[i], state)]
    pending, age = np.zeros((16, 3)), WINDOW_FRAMES
    limit = max_seconds * clip.fps
    while state.walked < path.length - 0.1 and len(frames) < limit:
        if stopped is not None and stopped():
            raise JobCancelledError("the search was cancelled")
        for start, end in search.best(state):
            if (start.clip, start.frame) != (state.clip, state.frame):
                pending = frames[-1] - _world(g.clips[start.clip].nodes[start.frame], start)
                age = 0
            for k in range(start.frame + 1, end + 1):
                age += 1
                fade = 1.0 - smoothstep(age / WINDOW_FRAMES)
                frames.append(_world(g.clips[start.clip].nodes[k], start) + pending * fade)
            state = search.advance(start, end)
    return Clip("motion-graph", np.array(frames), clip.fps, False, height, preset)


def _world(pose: np.ndarray, s: _State) -> np.ndarray:
    return pose @ s.rot_t + s.shift
