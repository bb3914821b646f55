"""Summary metrics of a finished job: foot skate, falls, behaviour switches, steps.

These are the numbers a batch's manifest carries per job so that thousands of generated clips
can be screened without opening them: a foot that slides while planted (foot skate) is the
classic artefact of procedural locomotion; a character that ended down, or was ever down, is
usually a failed take; behaviour switch counts tell a lively playground from a stuck one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from twig.events import Event

if TYPE_CHECKING:
    from twig.world import World

PLANT_HEIGHT = 0.005
"""A foot counts as planted within this height (m) of its rest height..."""
PLANT_SPEED = 0.05
"""...and while slower than this (m/s)."""
FALL_CHECK_TICKS = 6
"""Characters are checked for being upright every this many ticks (10 Hz): a fall lasts far
longer, and checking every tick would cost a pelvis frame per character per tick."""
FEET = ("l_foot", "r_foot")


def plant_slides(track: np.ndarray, rest_y: float, dt: float,
                 max_speed: float | None = PLANT_SPEED) -> np.ndarray:
    """Horizontal slide (m) of a foot over each of its plants.

    Parameters
    ----------
    track
        (F, 3) positions of the foot node per frame, metres (NaN where it does not exist).
    rest_y
        Height of the node when it rests on the ground (its radius), metres.
    dt
        Seconds between frames.
    max_speed
        A planted foot is slower than this (m/s); None: any speed (a plant is then every
        run of frames within :data:`PLANT_HEIGHT` of ``rest_y``, from its first frame to its
        last, so a slide on landing or lifting off counts too).

    Returns
    -------
    (P,) float64: for each maximal run of planted frames (within :data:`PLANT_HEIGHT` of
    ``rest_y`` and slower than ``max_speed``), the horizontal (x, z) distance between the
    foot's position where the run starts and where it ends.
    """
    track = np.asarray(track, dtype=np.float64)
    if len(track) < 2:
        return np.zeros(0)
    low = track[:, 1] < rest_y + PLANT_HEIGHT
    if max_speed is None:  # runs of low frames, from the first to the last
        edges = np.diff(np.concatenate(([0], low.astype(np.int8), [0])))
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    else:  # runs of slow steps into low frames
        speed = np.linalg.norm(np.diff(track, axis=0), axis=1) / dt
        planted = low[1:] & (speed < max_speed)
        edges = np.diff(np.concatenate(([0], planted.astype(np.int8), [0])))
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    return np.linalg.norm((track[ends] - track[starts])[:, [0, 2]], axis=1)


def foot_skate(track: np.ndarray, rest_y: float, dt: float) -> tuple[float, int]:
    """Mean horizontal slide (m) of a foot while planted, and the number of plants (see
    :func:`plant_slides`; 0.0 when it never plants)."""
    slides = plant_slides(track, rest_y, dt)
    return (float(slides.mean()) if len(slides) else 0.0), len(slides)


class FallWatch:
    """Notes which of ``world``'s characters are ever not upright (checked every
    :data:`FALL_CHECK_TICKS` ticks as the world steps, and by :meth:`summary` at the end)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.fallen: set[str] = set()
        world.stages.add("record", self._on_tick)

    def _on_tick(self) -> None:
        if self.world.tick % FALL_CHECK_TICKS == 0:
            self.fallen.update(c.name for c in self.world.characters if not c.upright)

    def summary(self) -> dict[str, Any]:
        """``falls`` (how many characters were ever down), ``fallen`` and ``down_at_end``
        (their names, sorted)."""
        down = sorted(c.name for c in self.world.characters if not c.upright)
        self.fallen.update(down)
        self.world.stages.remove("record", self._on_tick)
        return {"falls": len(self.fallen), "fallen": sorted(self.fallen), "down_at_end": down}


def skate_summary(world: World, arrays: Mapping[str, np.ndarray], dt: float) -> dict[str, Any]:
    """Foot skate over both feet of every character, from a recording's ``arrays`` with
    frames ``dt`` seconds apart: ``foot_skate_m`` (mean slide per plant, m; None without
    plants), ``foot_skate_max_m`` and ``foot_plants``."""
    column = {name: k for k, name in enumerate(arrays["node_name"].tolist())}
    slides = [np.zeros(0)]
    for character in world.characters:
        for foot in FEET:
            col = column.get(f"{character.name}/{foot}")
            if col is not None:
                rest = float(world.nodes["radius"][character.node(foot)])
                slides.append(plant_slides(arrays["pos"][:, col], rest, dt))
    every = np.concatenate(slides)
    if len(every) == 0:
        return {"foot_skate_m": None, "foot_skate_max_m": None, "foot_plants": 0}
    return {"foot_skate_m": float(every.mean()), "foot_skate_max_m": float(every.max()),
            "foot_plants": len(every)}


def behavior_switches(events: list[Event]) -> dict[str, int]:
    """Behaviour switches per agent: the ``behavior`` events of a trace (DESIGN.md, "Trace"),
    counted by ``agent``, sorted by name."""
    counts = Counter(e["agent"] for e in events if e["type"] == "behavior")
    return dict(sorted(counts.items()))


def job_metrics(world: World, arrays: Mapping[str, np.ndarray], dt: float,
                falls: FallWatch, events: list[Event]) -> dict[str, Any]:
    """Every summary metric of a finished job (the manifest's ``metrics``)."""
    characters = world.characters
    return {
        "characters": len(characters),
        **skate_summary(world, arrays, dt),
        **falls.summary(),
        "steps": {c.name: c.steps for c in characters},
        "behavior_switches": behavior_switches(events),
    }
