"""Attachment: the safe-home-base drive (Horswill 2009, section XII; Bowlby 1969).

A child's *anxiety* grows with its distance from its attachment figure (the parent) and with
the time spent away; near the parent it calms, and a hug soothes it quickly. Anxiety raises
the parent's salience and monitoring priority in the child's attention, so the child stops and
looks back more and more often, until the parent becomes the focus and ``hug-parent`` wins.
Vectorised over agents.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class AttachmentParams:
    """Constants of the drive (per second rates of anxiety, which runs from 0 to 1).

    Attributes
    ----------
    comfort
        Within this distance of the parent anxiety calms, m.
    grow_time
        Growth per second away from the parent.
    grow_distance
        Extra growth per second per metre beyond ``comfort``.
    calm
        Decay per second within ``comfort``.
    soothe
        Decay per second while hugging the parent.
    pain
        Anxiety added by each painful impact.
    salience, monitoring
        The parent's salience and monitoring priority gained per unit of anxiety.
    """

    comfort: float = 2.0
    grow_time: float = 0.012
    grow_distance: float = 0.004
    calm: float = 0.08
    soothe: float = 0.35
    pain: float = 0.25
    salience: float = 1.0
    monitoring: float = 0.9


class Attachment:
    """Anxiety of ``A`` agents toward their attachment figures (object indices, -1: none)."""

    def __init__(self, params: AttachmentParams | None = None) -> None:
        self.params = params or AttachmentParams()
        self.figure = np.zeros(0, dtype=np.int64)
        self.anxiety = np.zeros(0)

    def resize(self, figure: np.ndarray, agent_map: np.ndarray) -> None:
        """New agents (old row per new row, -1 new) and their figures' object indices."""
        anxiety = np.zeros(len(figure))
        keep = agent_map >= 0
        anxiety[keep] = self.anxiety[agent_map[keep]]
        self.figure, self.anxiety = figure, anxiety

    def update(self, position: np.ndarray, obj_pos: np.ndarray, soothing: np.ndarray,
               boost: np.ndarray, dt: float) -> None:
        """Advance anxiety by ``dt`` seconds and add the parent's salience and monitoring to
        ``boost`` ((A, O, 2), see :class:`~twig.behavior.attention.Attention`).

        ``position`` (A, 3) are the agents' positions, ``soothing`` (A,) bool whether each
        is hugging its parent now.
        """
        has = np.flatnonzero(self.figure >= 0)
        if not len(has):
            return
        p = self.params
        d = obj_pos[self.figure[has]] - position[has]
        dist = np.hypot(d[:, 0], d[:, 2])
        away = dist > p.comfort
        rate = np.where(away, p.grow_time + p.grow_distance * (dist - p.comfort), -p.calm)
        rate = np.where(soothing[has], -p.soothe, rate)
        self.anxiety[has] = np.clip(self.anxiety[has] + rate * dt, 0.0, 1.0)
        boost[has, self.figure[has], 0] += p.salience * self.anxiety[has]
        boost[has, self.figure[has], 1] += p.monitoring * self.anxiety[has]

    def hurt(self, row: int) -> None:
        """A painful impact frightens the agent (adds ``params.pain``) if it has a figure."""
        if self.figure[row] >= 0:
            self.anxiety[row] = min(1.0, self.anxiety[row] + self.params.pain)
