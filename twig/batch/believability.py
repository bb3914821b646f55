"""Believability metrics of a finished run: the artefacts an audience notices (``twig check``).

Everything is computed from a recording taken every tick (``pos`` (F, N, 3), m) and from the
events the run emitted, vectorised over frames and nodes. A *frame* is a 30 fps video frame
(two 60 Hz ticks): a jump is how far a node moves in one frame, measured from every tick so
that a spike between two frames of one video is still caught by the other phase.

Metric names are the keys of :func:`believability`'s result; docs/believability.md explains
each and the thresholds of ``twig check --strict``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from twig.batch.metrics import FEET, plant_slides
from twig.events import Event
from twig.motor.state import SIT

if TYPE_CHECKING:
    from twig.world import World

FRAME_S = 1.0 / 30.0
"""A video frame, seconds."""
DOWN = 0.6
"""A character is down while its head is under this fraction of its standing height."""
UP_AGAIN = 0.7
"""...and up again once the head is back over this fraction (hysteresis: one fall, not many)."""
PAIN_BEFORE = 3.0
"""A fall counts as caused by pain if the character felt pain this many seconds before it."""
LOWERED_BEFORE = 0.5
"""A character that crouched or sat down on purpose this many seconds before its head went
down has not fallen."""
LEAN = np.radians(45.0)
"""A trunk (pelvis to neck) further than this from vertical leans."""
HUG_REACH = 0.3
"""A joined hug's hands must be within this distance (m) of the partner's trunk..."""
HUG_WINDOW = 1.0
"""...over this many seconds after it joins."""
HYPER = np.radians(5.0)
"""A knee bent backwards by more than this angle is hyperextended."""
THROWN = frozenset({"ball", "weight"})
"""Body types that are thrown, kicked or dropped: left out of the prop speed."""
NOT_PROPS = frozenset({"humanoid", "cloth", "rope", "stick", "tetrahedron"})
"""Body types that are not props (characters, and the physics demos' cloths, ropes, sticks and
tetrahedra, which swing and fall as fast as physics takes them)."""
EVENTS = ("pain", "hug", "action", "behavior", "controller")


class CheckWatch:
    """Collects, while ``world`` runs, what a recording does not hold: the events the metrics
    read and the deepest interpenetration of the contacts of each tick."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.events: list[Event] = []
        self.depth = 0.0
        self.characters = list(world.characters)
        # Per tick, whether each character is lowering itself on purpose (crouching or
        # bending to reach down, sitting): a head that goes down then is not a fall.
        self.lowered: list[list[bool]] = [[False] * len(self.characters)]
        self._sub = world.events.subscribe(self.events.append, EVENTS)
        world.stages.add("record", self._on_tick)

    def _on_tick(self) -> None:
        if self.world.contact_count:
            self.depth = max(self.depth, float(self.world.contacts.depth.max()))
        self.lowered.append([c.alive and (c.motor_table["crouch"][c.motor_row] > 0.0
                                          or c.motor_table["mode"][c.motor_row] == SIT)
                             for c in self.characters])

    def stop(self) -> None:
        """Stop collecting (what was collected is kept)."""
        self._sub.cancel()
        self.world.stages.remove("record", self._on_tick)


def _columns(arrays: Mapping[str, np.ndarray], name: str, nodes: tuple[str, ...]) -> np.ndarray:
    """Recording columns of ``name``'s ``nodes``."""
    column = {n: k for k, n in enumerate(arrays["node_name"].tolist())}
    return np.array([column[f"{name}/{n}"] for n in nodes], dtype=np.int64)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)


def node_jump(pos: np.ndarray, stride: int) -> float:
    """Largest distance (m) any node of ``pos`` (F, N, 3) moves in ``stride`` frames (0.0 for
    fewer frames; nodes that do not exist are ignored)."""
    if len(pos) <= stride:
        return 0.0
    step = np.linalg.norm(pos[stride:] - pos[:-stride], axis=2)
    return float(np.nanmax(step, initial=0.0))


def link_stretch(pos: np.ndarray, links: np.ndarray, rest: np.ndarray) -> np.ndarray:
    """(F,) largest relative length error (fraction) of ``links`` ((L, 2) columns, ``rest``
    (L,) m) per frame."""
    if len(links) == 0:
        return np.zeros(len(pos))
    length = np.linalg.norm(pos[:, links[:, 0]] - pos[:, links[:, 1]], axis=2)
    return np.nanmax(np.abs(length - rest) / rest, axis=1, initial=0.0)


def episodes(down: np.ndarray, up: np.ndarray) -> np.ndarray:
    """Frames at which a character goes down: ``down`` (F,) starts an episode, which lasts
    until ``up`` (F,) is true again."""
    starts = []
    k = 0
    while True:
        hits = np.flatnonzero(down[k:])
        if not len(hits):
            return np.array(starts, dtype=np.int64)
        start = k + int(hits[0])
        starts.append(start)
        ups = np.flatnonzero(up[start:])
        if not len(ups):
            return np.array(starts, dtype=np.int64)
        k = start + int(ups[0])


def knee_backwards(pos: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """(F,) whether a knee bends backwards by more than :data:`HYPER`. ``cols`` are the
    columns of l_hip, r_hip, pelvis, neck, then hip, knee, foot of each leg; the knee's plane
    faces the pelvis's forward ``(l_hip - r_hip) x (neck - pelvis)`` (the hinge's, eq. 4-5)."""
    l_hip, r_hip, pelvis, neck = (pos[:, c] for c in cols[:4])
    forward = _unit(np.cross(l_hip - r_hip, neck - pelvis))
    bent = np.zeros(len(pos), dtype=bool)
    for leg in (cols[4:7], cols[7:10]):
        hip, knee, foot = (pos[:, c] for c in leg)
        thigh, shin = knee - hip, foot - knee
        cos = np.einsum("fi,fi->f", _unit(thigh), _unit(shin))
        angle = np.arccos(np.clip(cos, -1.0, 1.0))
        line = _unit(foot - hip)
        off = thigh - np.einsum("fi,fi->f", thigh, line)[:, None] * line
        bent |= (np.einsum("fi,fi->f", off, forward) < 0.0) & (angle > HYPER)
    return bent


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(F,) distance from points ``p`` to segments ``a``-``b`` ((F, 3) each), m."""
    ab = b - a
    s = np.clip(np.einsum("fi,fi->f", p - a, ab) / np.maximum(
        np.einsum("fi,fi->f", ab, ab), 1e-12), 0.0, 1.0)
    return np.linalg.norm(p - (a + s[:, None] * ab), axis=1)


class _Run:
    """One run's recording and events, with the lookups the metrics share."""

    def __init__(self, world: World, arrays: Mapping[str, np.ndarray], dt: float,
                 watch: CheckWatch) -> None:
        self.world = world
        self.arrays = arrays
        self.pos = arrays["pos"]
        self.t = arrays["t"]
        self.dt = dt
        self.stride = max(1, round(FRAME_S / dt))
        self.events = watch.events
        self.depth = watch.depth
        lowered = np.array(watch.lowered, dtype=bool).reshape(len(watch.lowered), -1)
        self.lowered = {c.name: lowered[:len(self.t), k]
                        for k, c in enumerate(watch.characters)}
        self.characters = [c for c in world.characters if f"{c.name}/head" in
                           set(arrays["node_name"].tolist())]
        self.meta = {c.name: world.body_record(c.id).meta for c in self.characters}
        self.pains: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(0))
        pains = defaultdict(list)
        for e in self.events:
            if e["type"] == "pain":
                pains[e["agent"]].append(e["t"])
        self.pains.update({k: np.array(v) for k, v in pains.items()})

    def node(self, name: str, node: str) -> np.ndarray:
        """(F, 3) track of ``name``'s ``node``."""
        return self.pos[:, _columns(self.arrays, name, (node,))[0]]

    def frame(self, t: float) -> int:
        """The recorded frame at or after time ``t``."""
        return int(np.searchsorted(self.t, t - 1e-9))

    def child(self, name: str) -> bool:
        return self.meta[name].get("preset") == "child"


def _shape(run: _Run) -> dict[str, Any]:
    """Node jumps and visible link stretch of the characters."""
    names = set(c.name for c in run.characters)
    cols = np.flatnonzero(np.isin(run.arrays["node_body"], list(names)))
    link, rest = run.arrays["link"], run.arrays["link_rest"]
    keep = (run.arrays["link_visible"] & np.isfinite(rest)
            & np.isin(link[:, 0], cols) & np.isin(link[:, 1], cols)) if len(link) else []
    stretch = link_stretch(run.pos, link[keep], rest[keep]) * 100.0 if len(link) else \
        np.zeros(len(run.pos))
    return {"jump_m": node_jump(run.pos[:, cols], run.stride),
            "stretch_p99_pct": float(np.percentile(stretch, 99)) if len(stretch) else 0.0,
            "stretch_max_pct": float(stretch.max(initial=0.0))}


def _falls(run: _Run) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, np.ndarray]]:
    """Falls of every character, with or without pain (or a hybrid hand-over) before them;
    also each character's (F,) down mask for the lean."""
    handovers = defaultdict(list)
    for e in run.events:
        if e["type"] == "controller":
            handovers[e["agent"]].append(e["t"])
    falls, down_masks = [], {}
    for c in run.characters:
        head = run.node(c.name, "head")[:, 1]
        standing = float(head[0])
        down_masks[c.name] = head < DOWN * standing
        back = max(1, round(LOWERED_BEFORE / run.dt))
        lowered = run.lowered.get(c.name)
        for k in episodes(down_masks[c.name], head > UP_AGAIN * standing):
            if lowered is not None and lowered[max(0, k - back):k + 1].any():
                continue  # crouching or sitting down, not falling
            t = float(run.t[k])
            pain = bool(((run.pains[c.name] >= t - PAIN_BEFORE) &
                         (run.pains[c.name] <= t)).any())
            hand = np.array(handovers[c.name])
            scripted = bool(((hand >= t - PAIN_BEFORE) & (hand <= t)).any())
            falls.append({"agent": c.name, "t": round(t, 4), "child": run.child(c.name),
                          "pain": pain, "scripted": scripted})
    summary = {
        "falls": len(falls),
        "falls_pain": sum(f["pain"] for f in falls),
        "adult_falls_unexplained": sum(not f["child"] and not f["pain"] and not f["scripted"]
                                       for f in falls),
        "child_falls_no_pain": sum(f["child"] and not f["pain"] for f in falls),
    }
    return summary, falls, down_masks


def _lean(run: _Run, down: dict[str, np.ndarray]) -> float | None:
    """Largest share (%) of a child's frames, while not down, with the trunk leaning past
    :data:`LEAN`; None without children."""
    shares = []
    for c in run.characters:
        if not run.child(c.name):
            continue
        trunk = _unit(run.node(c.name, "neck") - run.node(c.name, "pelvis"))
        leaning = np.arccos(np.clip(trunk[:, 1], -1.0, 1.0)) > LEAN
        up = ~down[c.name]
        shares.append(100.0 * float((leaning & up).sum()) / max(int(up.sum()), 1))
    return max(shares) if shares else None


def _hugs(run: _Run) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Each joined hug: the share of its first :data:`HUG_WINDOW` seconds (or of the hug, if
    shorter) with both of the hugger's hands within :data:`HUG_REACH` of the partner's trunk
    (the pelvis-chest-neck line)."""
    names = {c.name for c in run.characters}
    ends = defaultdict(list)
    for e in run.events:
        if e["type"] == "hug" and e["status"] == "end":
            ends[e["agent"]].append(e["t"])
    hugs = []
    for e in run.events:
        if e["type"] != "hug" or e["status"] != "joined" or e["object"] not in names:
            continue
        who, other, t0 = e["agent"], e["object"], e["t"]
        later = [t for t in ends[who] if t >= t0]
        t1 = min([t0 + HUG_WINDOW, *later])
        a, b = run.frame(t0), max(run.frame(t1), run.frame(t0) + 1)
        trunk = [run.node(other, n)[a:b] for n in ("pelvis", "chest", "neck")]
        near = np.ones(b - a, dtype=bool)
        for hand in ("l_hand", "r_hand"):
            p = run.node(who, hand)[a:b]
            gap = np.minimum(_segment_distance(p, trunk[0], trunk[1]),
                             _segment_distance(p, trunk[1], trunk[2]))
            near &= gap <= HUG_REACH
        hugs.append({"agent": who, "partner": other, "t": t0,
                     "hands_around": round(float(near.mean()), 4)})
    shares = [h["hands_around"] for h in hugs]
    return {"hugs": len(hugs), "hug_hands_min": min(shares) if shares else None}, hugs


def _props(run: _Run) -> dict[str, Any]:
    """Fastest speed (m/s, tick to tick) of a node of a prop (not of :data:`NOT_PROPS`)
    other than those thrown and kicked (:data:`THROWN`): ``prop_speed_ms``, the prop's name
    (``prop``), the node (``prop_node``, ``body/node``) and when (``prop_t``, s, the later
    tick)."""
    body, kind = run.arrays["node_body"], run.arrays["body_type"]
    cols = np.flatnonzero(~np.isin(kind, list(NOT_PROPS | THROWN)) & (body != ""))
    if len(cols) == 0 or len(run.pos) < 2:
        return {"prop_speed_ms": None, "prop": None, "prop_node": None, "prop_t": None}
    speed = np.linalg.norm(np.diff(run.pos[:, cols], axis=0), axis=2) / run.dt
    speed = np.nan_to_num(speed, nan=0.0)
    k = np.unravel_index(int(np.argmax(speed)), speed.shape)
    return {"prop_speed_ms": float(speed[k]), "prop": str(body[cols[k[1]]]),
            "prop_node": str(run.arrays["node_name"][cols[k[1]]]),
            "prop_t": float(run.t[k[0] + 1])}


def _feet_and_knees(run: _Run) -> dict[str, Any]:
    """Foot slide per plant (cm, mean and max; a plant is a run of frames within 5 mm of the
    foot's rest height, at any speed) and frames (30 fps) with a knee bent backwards."""
    slides, knee_frames = [np.zeros(0)], 0
    nodes = ("l_hip", "r_hip", "pelvis", "neck", "l_hip", "l_knee", "l_foot", "r_hip",
             "r_knee", "r_foot")
    for c in run.characters:
        for foot in FEET:
            rest = float(run.world.nodes["radius"][c.node(foot)])
            slides.append(plant_slides(run.node(c.name, foot), rest, run.dt, None))
        cols = _columns(run.arrays, c.name, nodes)
        knee_frames += int(knee_backwards(run.pos[::run.stride], cols).sum())
    every = np.concatenate(slides) * 100.0
    return {"foot_slide_cm": float(every.mean()) if len(every) else None,
            "foot_slide_max_cm": float(every.max()) if len(every) else None,
            "knee_frames": knee_frames}


def _home_cycles(run: _Run) -> int | None:
    """play-ball -> hug-parent -> play-ball cycles with a joined hug in between, summed over
    the characters that have a ``hug-parent`` behaviour (None when none has)."""
    system = getattr(run.world, "behavior", None)
    agents = [a.name for a in getattr(system, "agents", [])
              if any(b.name == "hug-parent" for lv in a.levels for b in lv.behaviors)]
    if not agents:
        return None
    total = 0
    for name in agents:
        goals = [(e["t"], e["behavior"]) for e in run.events if e["type"] == "behavior"
                 and e["agent"] == name and e["level"] == "goals"]
        joined = np.array([e["t"] for e in run.events if e["type"] == "hug"
                           and e["agent"] == name and e["status"] == "joined"])
        for k in range(1, len(goals) - 1):
            if [b for _, b in goals[k - 1:k + 2]] == ["play-ball", "hug-parent", "play-ball"]:
                total += bool(((joined >= goals[k][0]) & (joined <= goals[k + 1][0])).any())
    return total


def _standup(run: _Run) -> float | None:
    """Fastest pelvis speed (m/s, over a frame) while a ``stand-up`` action runs; None when
    nobody stood up."""
    starts: dict[str, float] = {}
    spans = []
    for e in run.events:
        if e["type"] == "action" and e["name"] == "stand-up":
            if e["status"] == "start":
                starts[e["agent"]] = e["t"]
            elif e["agent"] in starts:
                spans.append((e["agent"], starts.pop(e["agent"]), e["t"]))
    spans += [(a, t, float(run.t[-1])) for a, t in starts.items()]
    best = None
    for agent, t0, t1 in spans:
        a, b = run.frame(t0), run.frame(t1) + 1
        pelvis = run.node(agent, "pelvis")[a:b]
        if len(pelvis) > run.stride:
            v = np.linalg.norm(pelvis[run.stride:] - pelvis[:-run.stride], axis=1)
            speed = float(v.max()) / (run.stride * run.dt)
            best = speed if best is None else max(best, speed)
    return best


def believability(world: World, arrays: Mapping[str, np.ndarray], dt: float,
                  watch: CheckWatch) -> dict[str, Any]:
    """Every believability metric of a finished run.

    Parameters
    ----------
    world
        The world after the run.
    arrays
        Its recording (:meth:`twig.export.recording.Recording.arrays`), taken every tick.
    dt
        Seconds between recorded frames.
    watch
        The :class:`CheckWatch` attached before the run.

    Returns
    -------
    ``metrics`` (name -> number or None where the scene has nothing to measure) and the
    ``falls`` and ``hugs`` behind them (lists of dicts).
    """
    watch.stop()
    run = _Run(world, arrays, dt, watch)
    falls, fall_list, down = _falls(run)
    hugs, hug_list = _hugs(run)
    metrics = {
        **_shape(run),
        **falls,
        "child_lean_pct": _lean(run, down),
        **hugs,
        **_props(run),
        **_feet_and_knees(run),
        "penetration_cm": 100.0 * run.depth,
        "home_cycles": _home_cycles(run),
        "standup_speed_ms": _standup(run),
    }
    return {"metrics": {k: round(v, 4) if isinstance(v, float) else v
                        for k, v in metrics.items()},
            "falls": fall_list, "hugs": hug_list}
