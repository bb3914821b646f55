"""Attention: appraisal, short-term memory, focus and gaze for every character at once
(Horswill 2009, sections IX and XII).

Each character appraises every object in view (a cone about its gaze) or in short-term memory
for *salience* (interest), *valence* (good/bad) and *monitoring priority* (how much to keep an
eye on it). Memory of an unseen object decays; the maximal-salience object is the *focus*, and
focus switching is inhibited for a refractory period (1 s) after each switch. The gaze shifts
between the focus, the approach target and objects of high monitoring priority.

State is (A, O) arrays, agents by objects; every step is vectorised NumPy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from twig.errors import TwigError


@dataclass(frozen=True)
class AttentionParams:
    """Constants of attention.

    Attributes
    ----------
    view_half_angle_deg
        Half-angle of the view cone about the gaze direction, degrees.
    view_range
        Farthest object seen, m.
    memory_half_life
        An unseen object's memory halves every this many seconds.
    forget_below
        Memory below this is forgotten (not appraised).
    focus_refractory
        Seconds after a focus switch before the next (Horswill: 1 s).
    proximity_scale
        Base salience falls as ``1 / (1 + distance / proximity_scale)``, m.
    gaze_dwell
        (min, max) seconds the gaze rests on one object before shifting.
    monitor_threshold
        Objects with monitoring priority above this compete for the gaze.
    """

    view_half_angle_deg: float = 100.0
    view_range: float = 20.0
    memory_half_life: float = 4.0
    forget_below: float = 0.05
    focus_refractory: float = 1.0
    proximity_scale: float = 8.0
    gaze_dwell: tuple[float, float] = (0.7, 1.5)
    monitor_threshold: float = 0.35

    def __post_init__(self) -> None:
        lo, hi = self.gaze_dwell
        if not (0 < lo <= hi < math.inf):
            raise TwigError(f"attention: gaze_dwell must be (min, max) seconds with "
                            f"0 < min <= max, got {self.gaze_dwell!r}")
        if not 0 < self.view_half_angle_deg <= 180:
            raise TwigError("attention: view_half_angle_deg must be in (0, 180], got "
                            f"{self.view_half_angle_deg!r}")


class Attention:
    """Appraisal, memory, focus and gaze arrays of ``A`` agents over ``O`` objects.

    Attributes (rows: agents, columns: objects)
    -------------------------------------------
    base
        (A, O, 3) standing interest: salience, valence, monitoring priority.
    boost
        (A, O, 2) added salience and monitoring this tick (drives such as anxiety write it).
    memory
        (A, O) 1 when seen now, decaying when not.
    known
        (A, O) bool: ever seen.
    salience, valence, monitor
        (A, O) this tick's appraisal.
    focus
        (A,) object index of the focus (-1: none yet); ``focus_since`` (A,) s.
    gaze
        (A,) object index looked at (-1: none); ``gaze_until`` (A,) s.
    """

    def __init__(self, params: AttentionParams | None = None) -> None:
        self.params = params or AttentionParams()
        self.resize(0, 0)

    def resize(self, n_agents: int, n_objects: int, agent_map: np.ndarray | None = None,
               object_map: np.ndarray | None = None) -> None:
        """New shapes; rows/columns listed in ``agent_map``/``object_map`` (old index per new
        index, -1 for new ones) keep their state."""
        old = self.__dict__.copy()
        a, o = n_agents, n_objects
        self.base = np.zeros((a, o, 3))
        self.boost = np.zeros((a, o, 2))
        self.memory = np.zeros((a, o))
        self.known = np.zeros((a, o), dtype=bool)
        self.salience = np.zeros((a, o))
        self.valence = np.zeros((a, o))
        self.monitor = np.zeros((a, o))
        self.focus = np.full(a, -1, dtype=np.int64)
        self.focus_since = np.full(a, -math.inf)
        self.gaze = np.full(a, -1, dtype=np.int64)
        self.gaze_until = np.full(a, -math.inf)
        if agent_map is None or object_map is None or "memory" not in old:
            return
        ra, ro = agent_map >= 0, object_map >= 0
        src_a, src_o = agent_map[ra], object_map[ro]
        self.memory[np.ix_(ra, ro)] = old["memory"][np.ix_(src_a, src_o)]
        self.known[np.ix_(ra, ro)] = old["known"][np.ix_(src_a, src_o)]
        back = np.full(old["memory"].shape[1] + 1, -1)
        back[src_o] = np.flatnonzero(ro)
        self.focus[ra] = back[old["focus"][src_a]]
        self.gaze[ra] = back[old["gaze"][src_a]]
        self.focus_since[ra] = old["focus_since"][src_a]
        self.gaze_until[ra] = np.where(self.gaze[ra] >= 0, old["gaze_until"][src_a], -math.inf)

    def appraise(self, self_index: np.ndarray, eye: np.ndarray, gaze_dir: np.ndarray,
                 obj_pos: np.ndarray, dt: float) -> None:
        """Re-appraise every object for every agent (the *sense* stage).

        Parameters
        ----------
        self_index
            (A,) each agent's own object index (never appraised).
        eye
            (A, 3) where each agent looks from, m.
        gaze_dir
            (A, 3) unit gaze directions.
        obj_pos
            (O, 3) object positions, m.
        dt
            Seconds since the last appraisal.
        """
        p = self.params
        rel = obj_pos[None, :, :] - eye[:, None, :]
        rel[..., 1] = 0.0
        dist = np.sqrt((rel ** 2).sum(axis=2))
        g = gaze_dir.copy()
        g[:, 1] = 0.0
        g /= np.maximum(np.linalg.norm(g, axis=1), 1e-9)[:, None]
        cos = (rel * g[:, None, :]).sum(axis=2) / np.maximum(dist, 1e-9)
        seen = (dist <= p.view_range) & ((cos >= math.cos(math.radians(
            p.view_half_angle_deg))) | (dist < 0.6))
        rows = np.arange(len(self_index))
        seen[rows, self_index] = False
        self.memory *= 0.5 ** (dt / p.memory_half_life)
        self.memory[seen] = 1.0
        self.known |= seen
        remembered = np.where(self.memory >= p.forget_below, self.memory, 0.0)
        near = 1.0 / (1.0 + dist / p.proximity_scale)
        self.salience = remembered * (self.base[..., 0] * near + self.boost[..., 0])
        self.salience[rows, self_index] = 0.0
        self.valence = np.where(remembered > 0, self.base[..., 1], 0.0)
        self.monitor = self.known * (self.base[..., 2] + self.boost[..., 1])

    def choose_focus(self, now: float) -> np.ndarray:
        """Move the focus to the maximal-salience object where the refractory period is over
        and it beats the current focus; returns the agents whose focus changed."""
        if not self.salience.size:
            return np.zeros(0, dtype=np.int64)
        best = self.salience.argmax(axis=1)
        rows = np.arange(len(best))
        top = self.salience[rows, best]
        mine = np.where(self.focus >= 0, self.salience[rows, np.maximum(self.focus, 0)], -1.0)
        free = now - self.focus_since >= self.params.focus_refractory - 1e-9
        switch = free & (top > mine) & (top > 0) & (best != self.focus)
        changed = np.flatnonzero(switch)
        self.focus[changed] = best[changed]
        self.focus_since[changed] = now
        return changed

    def choose_gaze(self, now: float, target: np.ndarray, self_index: np.ndarray,
                    rng: np.random.Generator) -> np.ndarray:
        """Shift the gaze of agents whose dwell time is over: to the highest-monitoring
        object above threshold with probability equal to its priority (at most 0.8), else
        alternately to the approach target (``target`` (A,), -1: none) and the focus.
        Returns the agents whose gaze object changed."""
        due = np.flatnonzero(now >= self.gaze_until)
        if not len(due):
            return due
        p = self.params
        draws = rng.random((len(due), 2))
        mon = self.monitor[due].copy()
        mon[np.arange(len(due)), self_index[due]] = 0.0
        watch = mon.argmax(axis=1)
        level = mon[np.arange(len(due)), watch]
        look_back = (level > p.monitor_threshold) & (draws[:, 0] < np.minimum(level, 0.8))
        tgt, foc, cur = target[due], self.focus[due], self.gaze[due]
        ahead = np.where((tgt >= 0) & ((cur != tgt) | (foc < 0)), tgt, foc)
        choice = np.where(look_back & (cur != watch), watch, ahead)
        choice = np.where(choice >= 0, choice, cur)
        lo, hi = p.gaze_dwell
        self.gaze_until[due] = now + lo + (hi - lo) * draws[:, 1]
        changed = choice != cur
        self.gaze[due] = choice
        return due[changed]
