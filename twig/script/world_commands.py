"""Commands of ``world:``: time, the clock, objects, the state snapshot and event streams.

The target of ``world:`` is a :class:`WorldTarget`, one per session (a script run or a client
connection), because some commands belong to the caller: ``wait-all`` joins that caller's
actions, ``subscribe`` and ``json`` change what it receives.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal, Protocol

from twig.action import Action
from twig.commands import Json, command
from twig.errors import ScriptError
from twig.physics import Body, PhysicsWorld
from twig.realtime import check_speed
from twig.script.watch import Watches

if TYPE_CHECKING:
    from twig.script.session import Session

EventType = Literal["contact", "pain", "behavior", "action", "focus", "grab", "release", "hug",
                    "controller", "removed"]
"""The event types of ``world.events`` (DESIGN.md, trace format)."""
EVENT_TYPES: tuple[str, ...] = EventType.__args__
MAX_STEP = 36000
"""Most ticks one ``world: step`` advances (ten minutes of simulated time)."""


class Clock(Protocol):
    """What controls wall-clock pace (:class:`twig.realtime.RealTime`)."""

    speed: float
    paused: bool

    def step_once(self, ticks: int = 1) -> None: ...


class FreeClock:
    """The clock of a world stepped as fast as it can (a script run, a replay).

    There is no wall clock to slow down or stop, so ``speed`` and ``paused`` are kept but do
    not change what is simulated; a served world's :class:`~twig.realtime.RealTime` obeys
    them. Scripts and recorded sessions therefore give the same result with either clock.
    """

    def __init__(self) -> None:
        self._speed = 1.0
        self.paused = False

    @property
    def speed(self) -> float:
        return self._speed

    @speed.setter
    def speed(self, value: float) -> None:
        self._speed = check_speed(value)

    def step_once(self, ticks: int = 1) -> None:
        """Nothing to do: the world is stepped by whoever runs it."""


class WorldTarget:
    """The world as a command target, seen by one :class:`~twig.script.session.Session`."""

    command_kind = "world"

    def __init__(self, world: PhysicsWorld, session: Session) -> None:
        self.world = world
        self.session = session

    @command
    def wait(self, seconds: float) -> Action:
        """Wait ``seconds`` of simulated time.

        Parameters
        ----------
        seconds
            How long, s of simulated time (0 or more).
        """
        if not (math.isfinite(seconds) and seconds >= 0):
            raise ScriptError(f"seconds must be a number >= 0, got {seconds!r}")
        world = self.world
        end = world.tick + round(seconds / world.dt)
        action = Action("wait", "world", world.events)
        if world.tick >= end:
            action.succeed()
            return action
        return Watches.of(world).add(action, lambda: world.tick >= end)

    @command
    def wait_all(self) -> Action:
        """Wait until every action this caller started so far has ended."""
        running = [a for a in self.session.actions if not a.done]
        action = Action("wait-all", "world", self.world.events)
        if not running:
            action.succeed()
            return action
        return Watches.of(self.world).add(action, lambda: all(a.done for a in running))

    @command
    def step(self, ticks: int = 1) -> Action:
        """Advance ``ticks`` ticks while paused (single-stepping); done when they have run.
        When not paused it just waits that many ticks.

        Parameters
        ----------
        ticks
            How many ticks of 1/60 s (1 to 36000, ten minutes).
        """
        if not 1 <= ticks <= MAX_STEP:
            raise ScriptError(f"ticks must be an integer from 1 to {MAX_STEP}, got {ticks}")
        clock = self.session.clock
        world = self.world
        end = world.tick + ticks
        action = Action("step", "world", world.events)
        if clock.paused:
            clock.step_once(ticks)
        return Watches.of(world).add(action, lambda: world.tick >= end)

    @command
    def speed(self, factor: float) -> None:
        """Run at ``factor`` times real time (simulated seconds per wall-clock second; no
        effect on a world stepped as fast as it can, like ``twig script``).

        Parameters
        ----------
        factor
            Simulated seconds per wall-clock second (0.01 to 64).
        """
        self.session.clock.speed = factor

    @command
    def pause(self) -> None:
        """Stop the clock (commands still run; ``world: step`` advances single ticks)."""
        self.session.clock.paused = True

    @command
    def resume(self) -> None:
        """Start the clock again after ``world: pause``."""
        self.session.clock.paused = False

    @command
    def time(self) -> Json:
        """Simulated time: ``{"t": seconds, "tick": ticks}``."""
        return {"t": round(self.world.time, 6), "tick": self.world.tick}

    @command
    def hash(self) -> Json:
        """The world's state hash (equal hashes: bit-identical positions, flags, links)."""
        return self.world.state_hash()

    @command
    def objects(self) -> Json:
        """Every object: ``[{"name", "type"}]`` in creation order."""
        return [{"name": b.name, "type": b.type} for b in self.world.bodies]

    @command
    def state(self, nodes: bool = True) -> Json:
        """A JSON snapshot: time, state hash and every object's type, centre of mass (m),
        velocity (m/s), pain, whether it sleeps, and (with ``nodes``) its node positions.

        Parameters
        ----------
        nodes
            Include every node's position (m).
        """
        world = self.world
        return {"t": round(world.time, 6), "tick": world.tick, "hash": world.state_hash(),
                "objects": [_object_state(b, nodes) for b in world.bodies]}

    @command
    def spawn(self, type: str, name: str, **fields: Any) -> None:
        """Add an object, as an ``[[object]]`` table of a scene file would: ``world: spawn
        ball ball2 position=(1, 0.5, 0) radius=0.2``. Fields are the type's builder fields
        (docs/scenes.md).

        Parameters
        ----------
        type
            The kind of object (``ball``, ``humanoid``, ``chair``...).
        name
            Its name, unique in the world.
        **fields
            The type's fields (``position``, ``radius``...).
        """
        from twig.scenes.objects import add_object

        add_object(self.world, {"type": type, "name": name, **fields}, "spawn")

    @command
    def remove(self, object: Body) -> None:
        """Remove an object with its nodes, links and everything attached to them.

        Parameters
        ----------
        object
            The object to remove.
        """
        self.world.remove_body(object)

    @command
    def subscribe(self, *types: EventType) -> None:
        """Receive events of these types (all types if none are named) as they happen.

        Parameters
        ----------
        *types
            Event types (DESIGN.md trace records).
        """
        self.session.subscribe(types or EVENT_TYPES)

    @command
    def unsubscribe(self, *types: EventType) -> None:
        """Stop receiving events of these types (all if none are named).

        Parameters
        ----------
        *types
            Event types.
        """
        self.session.unsubscribe(types or EVENT_TYPES)

    @command
    def json(self, on: bool) -> None:
        """Replies as one JSON object per line (``world: json on``) or as text (``off``).

        Parameters
        ----------
        on
            JSON replies (true) or text (false).
        """
        self.session.json = on


def _object_state(body: Body, with_nodes: bool) -> dict[str, Any]:
    world = body.world
    out: dict[str, Any] = {
        "name": body.name, "type": body.type,
        "position": [round(float(x), 6) for x in body.centroid],
        "velocity": [round(float(x), 6) for x in body.velocity],
        "pain": round(world.pain(body), 6), "asleep": world.is_asleep(body),
    }
    if with_nodes:
        out["nodes"] = {n: [round(float(x), 6) for x in p]
                        for n, p in zip(body.node_names, body.positions, strict=True)}
    return out
