"""The behaviour system of a world (``world.behavior``): every autonomous character's mind,
run once per tick before the motor system (the *sense* and *decide* stages of DESIGN.md).

Per tick: object positions (one NumPy reduction over the node array), the attachment drive,
attention (appraisal, memory, focus: (agents x objects) arrays), each agent's behaviour levels,
then one approach-field evaluation for every approaching agent (eq. 6, vectorised) and the gaze
shifts. Switches of behaviour and focus are ``behavior`` and ``focus`` events on
``world.events``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from twig.behavior.agent import Agent
from twig.behavior.attachment import Attachment, AttachmentParams
from twig.behavior.attention import Attention, AttentionParams
from twig.behavior.field import FieldParams, approach_field
from twig.behavior.selection import Selector
from twig.errors import TwigError
from twig.events import Event
from twig.physics.collision.narrow import BOX

if TYPE_CHECKING:
    from twig.behavior.standard import Approach
    from twig.motor import Character
    from twig.physics import PhysicsWorld

TYPE_INTEREST = {"ball": (0.5, 0.5, 0.1), "humanoid": (0.3, 0.2, 0.2), "doll": (0.2, 0.3, 0.0)}
"""Default (salience, valence, monitoring priority) of objects by body type."""
OTHER_INTEREST = (0.05, 0.0, 0.0)
"""Default appraisal of any other object."""


class BehaviorSystem:
    """All agents of one world; made by ``world.behavior`` on first use.

    Attributes
    ----------
    attention, attachment
        The vectorised attention and attachment state (rows: :attr:`agents`).
    field
        Constants of the approach field (eq. 6).
    object_names, object_index, object_pos, object_radius
        The objects (every body) this tick: names, name -> index, (O, 3) positions (mean of
        nodes, m) and (O,) footprint radii (m).
    """

    def __init__(self, world: PhysicsWorld, field: FieldParams | None = None,
                 attention: AttentionParams | None = None,
                 attachment: AttachmentParams | None = None) -> None:
        self.world = world
        self.field = field or FieldParams()
        self.attention = Attention(attention)
        self.attachment = Attachment(attachment)
        self.agents: list[Agent] = []
        self.object_names: list[str] = []
        self.object_index: dict[str, int] = {}
        self.object_pos = np.zeros((0, 3))
        self.object_radius = np.zeros(0)
        self.soothing = np.zeros(0, dtype=bool)
        self._figures: list[str | None] = []
        self._starts = np.zeros(0, dtype=np.int64)
        self._counts = np.zeros(0)
        self.self_index = np.zeros(0, dtype=np.int64)
        self.motor_rows = np.zeros(0, dtype=np.int64)
        self._version = (-1, -1)
        self._batch: list[tuple[Agent, Approach]] = []
        self._sensed = False
        world.stages.add("sense", self.sense)
        world.stages.add("decide", self.decide)
        world.events.subscribe(self._on_event, types=("pain", "grab", "release", "hug"))

    # ------------------------------------------------------------------ agents
    def add(self, character: Character, levels: Sequence[Selector], *,
            interests: dict[str, tuple[float, float, float]] | None = None,
            parent: str | None = None, carry: tuple[str, str] | None = None) -> Agent:
        """Make ``character`` autonomous with these behaviour levels (goals first).

        ``interests`` override the default appraisal of objects (by name or body type),
        ``parent`` names its attachment figure (anxiety, Horswill XII), ``carry`` (object,
        hand) is held from the start.
        """
        if self.agent(character) is not None:
            raise TwigError(f"{character.name} already has behaviours")
        agent = Agent(self, character, levels, interests, carry)
        self.agents.append(agent)
        self._figures.append(parent)
        self._version = (-1, -1)
        return agent

    def agent(self, character: Character | str) -> Agent | None:
        """The agent of ``character`` (a handle or a name), or None."""
        name = character if isinstance(character, str) else character.name
        for agent in self.agents:
            if agent.name == name:
                return agent
        return None

    def behavior_of(self, character: Character) -> str | None:
        """The current top-level behaviour of ``character``, or None if not autonomous."""
        agent = self.agent(character)
        return agent.behavior if agent is not None else None

    # ------------------------------------------------------------------ tables
    def _refresh(self) -> None:
        world = self.world
        version = (world.topology_version, len(self.agents))
        if version == self._version:
            return
        old_agents = {a.name: a.row for a in self.agents}
        old_objects = dict(self.object_index)
        self.agents = [a for a in self.agents if a.character.alive]
        bodies = sorted(world.bodies, key=lambda b: b.nodes.start)
        self.object_names = [b.name for b in bodies]
        self.object_index = {n: k for k, n in enumerate(self.object_names)}
        self._starts = np.array([b.nodes.start for b in bodies], dtype=np.int64)
        self._counts = np.array([b.nodes.stop - b.nodes.start for b in bodies], dtype=float)
        self.object_radius = np.array([footprint_radius(world, b) for b in bodies])
        self._figures = [f for a, f in zip(self.agents, self._figures, strict=False)]
        agent_map = np.array([old_agents.get(a.name, -1) for a in self.agents], dtype=np.int64)
        object_map = np.array([old_objects.get(n, -1) for n in self.object_names],
                              dtype=np.int64)
        self.attention.resize(len(self.agents), len(bodies), agent_map, object_map)
        self.attachment.resize(np.array([self.object_index.get(f, -1) if f else -1
                                         for f in self._figures], dtype=np.int64), agent_map)
        soothing = np.zeros(len(self.agents), dtype=bool)
        keep = agent_map >= 0
        soothing[keep] = self.soothing[agent_map[keep]]
        self.soothing = soothing
        for row, agent in enumerate(self.agents):
            agent.row = row
            self.attention.base[row] = self._interests(agent, bodies)
        self.self_index = np.array([self.object_index[a.name] for a in self.agents],
                                    dtype=np.int64)
        self.motor_rows = np.array([world.motor.row(a.character) for a in self.agents],
                                    dtype=np.int64)
        self._version = (world.topology_version, len(self.agents))

    @staticmethod
    def _interests(agent: Agent, bodies: Iterable[Any]) -> np.ndarray:
        return np.array([agent.interests.get(b.name, agent.interests.get(
            b.type, TYPE_INTEREST.get(b.type, OTHER_INTEREST))) for b in bodies], dtype=float)

    def _positions(self) -> np.ndarray:
        sums = np.add.reduceat(self.world.node_pos, self._starts, axis=0)
        return sums / self._counts[:, None]

    # ------------------------------------------------------------------ the tick
    def sense(self) -> None:
        """The sense stage: object positions, the attachment drive, attention (appraisal,
        memory) and focus."""
        self._sensed = False
        if not self.agents:
            return
        self._refresh()
        if not self.agents:
            return
        world, att = self.world, self.attention
        now, dt = world.time, world.dt
        self.object_pos = self._positions()
        me = self.object_pos[self.self_index]
        att.boost[:] = 0.0
        self.attachment.update(me, self.object_pos, self.soothing, att.boost, dt)
        gaze_dir = world.motor.table["gaze_dir"][self.motor_rows]
        att.appraise(self.self_index, me, gaze_dir, self.object_pos, dt)
        for row in att.choose_focus(now):
            world.events.emit("focus", agent=self.agents[row].name,
                              object=self.object_names[att.focus[row]])
        self._sensed = True

    def decide(self) -> None:
        """The decide stage: every agent's behaviour levels, one approach-field evaluation
        for every approaching agent (eq. 6), gaze shifts."""
        if not self._sensed:
            return
        world, now = self.world, self.world.time
        self._batch.clear()
        world.motor.autonomous_deciding = True
        try:
            for agent in self.agents:
                agent.decide(now)
            self._steer(now)
            self._look(now)
        finally:
            world.motor.autonomous_deciding = False

    def request_steering(self, agent: Agent, approach: Approach) -> None:
        """Queue ``agent`` for this tick's vectorised approach-field evaluation; the field's
        walk vector is handed to ``approach.steer``."""
        self._batch.append((agent, approach))

    def _steer(self, now: float) -> None:
        if not self._batch:
            return
        agents = [a for a, _ in self._batch]
        rows = np.array([a.row for a in agents])
        pos = self.object_pos[self.self_index[rows]]
        tgt = np.array([self.object_index[a.request.target] for a in agents])
        tpos = self.object_pos[tgt]
        away = pos - tpos
        away[:, 1] = 0.0
        gap = np.linalg.norm(away, axis=1)
        side = away / np.maximum(gap, 1e-9)[:, None]
        for i, a in enumerate(agents):
            if a.request.direction is not None:
                side[i] = a.request.direction
        dist = np.array([a.request.distance for a in agents])
        goal = tpos + dist[:, None] * side
        ignore = np.zeros((len(agents), len(self.object_names)), dtype=bool)
        ignore[np.arange(len(agents)), self.self_index[rows]] = True
        ignore[np.arange(len(agents)), tgt] = True
        for i, a in enumerate(agents):
            for name in a.carried:
                if name in self.object_index:
                    ignore[i, self.object_index[name]] = True
        speed = np.array([a.request.speed for a in agents])
        w = approach_field(pos, goal, self.object_pos, self.object_radius, ignore,
                           self.field, speed, self.object_radius[self.self_index[rows]])
        for i, (agent, approach) in enumerate(self._batch):
            approach.steer(agent, w[i], float(gap[i]), now)

    def _look(self, now: float) -> None:
        att = self.attention
        target = np.full(len(self.agents), -1, dtype=np.int64)
        for agent, _ in self._batch:
            target[agent.row] = self.object_index[agent.request.target]
        for row in att.choose_gaze(now, target, self.self_index, self.world.rng):
            self.agents[row].character.look_at(self.object_names[att.gaze[row]])

    # ------------------------------------------------------------------ events
    def _on_event(self, event: Event) -> None:
        agent = self.agent(str(event.get("agent", "")))
        if agent is None:
            return
        kind = event["type"]
        if kind == "pain":
            source = str(event.get("source", ""))
            if source == agent.contact_target():
                return  # no flinching from what it deliberately kicks, hugs or hits
            hugger = self.agent(source)
            if hugger is not None and hugger.hugging(agent.name):
                return  # nor from a child running into its arms for a hug
            first = agent.pain_time != float(event["t"])
            agent.pain_time = float(event["t"])
            agent.pain_source = source
            if first and 0 <= agent.row < len(self.attachment.anxiety):
                self.attachment.hurt(agent.row)
        elif kind == "grab":
            agent.carried.add(str(event["object"]))
        elif kind == "release":
            obj = event.get("object")
            agent.carried.discard(str(obj)) if obj else agent.carried.clear()
        elif kind == "hug" and 0 <= agent.row < len(self.soothing):
            figure = self._figures[agent.row] if agent.row < len(self._figures) else None
            if event.get("object") == figure:
                self.soothing[agent.row] = event.get("status") == "joined"


def footprint_radius(world: PhysicsWorld, body: Any) -> float:
    """Horizontal radius of ``body`` about the mean of its nodes, m: its nodes and their
    collision volumes' extents (boxes by their half-axes), as it stands now."""
    sl = body.nodes
    pos = world.node_pos[sl]
    centre = pos.mean(axis=0)
    off = pos[:, [0, 2]] - centre[[0, 2]]
    r = float((np.hypot(off[:, 0], off[:, 1]) + world.nodes["radius"][sl]).max())
    vols = world.volumes
    for k in np.flatnonzero(vols["body"] == body.id):
        if vols["kind"][k] == BOX:
            frame = world.node_pos[vols["nodes"][k]]
            c = vols["coef"][k][0] @ frame
            axes = vols["coef"][k][1:] @ frame
            half = math.sqrt(float((axes[:, [0, 2]] ** 2).sum()))
            r = max(r, math.hypot(c[0] - centre[0], c[2] - centre[2]) + half)
    return r
