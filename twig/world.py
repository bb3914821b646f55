"""``twig.World``: the physics world with the builders and the recording users reach for.

Later layers (characters, behaviours) add their stages through the world's tick hooks; physics
stays the only code that moves nodes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from numpy.typing import ArrayLike

from twig.bodies.charts import Chart, atlas
from twig.bodies.cloth import add_cloth
from twig.bodies.furniture import add_chair, add_table
from twig.bodies.merry_go_round import add_merry_go_round
from twig.bodies.mesh import add_box_model
from twig.bodies.props import add_ball, add_block, add_doll, add_weight
from twig.bodies.simple import add_rope, add_stick, add_tetrahedron
from twig.bodies.stationery import add_clipboard, add_pen
from twig.physics import Body, PhysicsWorld
from twig.physics.validate import as_positive

if TYPE_CHECKING:
    from twig.behavior import BehaviorSystem
    from twig.export.recording import Recording
    from twig.hybrid.supervisor import HybridSystem
    from twig.motor import MotorSystem
    from twig.physics import Snapshot
    from twig.snapshot import WorldSnapshot


class World(PhysicsWorld):
    """A twig world: ``twig.World(seed=0)``, then add bodies and :meth:`run` it.

    See :class:`~twig.physics.PhysicsWorld` for the parameters, the state arrays and the node
    control primitives.

    >>> import twig
    >>> world = twig.World(seed=0)
    >>> stick = world.add_stick("stick", position=(0, 2, 0), length=1.0)
    >>> world.run(seconds=2)
    >>> round(float(stick.positions[:, 1].min()), 2)   # lying on the ground, radius 2 cm
    0.02
    """

    def add_stick(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """A 1 m (by default) stick of two nodes; see :func:`twig.bodies.simple.add_stick`."""
        return add_stick(self, name, position, **kwargs)

    def add_rope(self, name: str, start: ArrayLike, **kwargs) -> Body:
        """A chain of rigid links; see :func:`twig.bodies.simple.add_rope`."""
        return add_rope(self, name, start, **kwargs)

    def add_tetrahedron(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """Jakobsen's four-particle rigid body; see :func:`twig.bodies.simple.add_tetrahedron`."""
        return add_tetrahedron(self, name, position, **kwargs)

    def add_cloth(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """A pinned square cloth; see :func:`twig.bodies.cloth.add_cloth`."""
        return add_cloth(self, name, position, **kwargs)

    def add_humanoid(self, name: str, position: ArrayLike = (0.0, 0.0, 0.0), **kwargs) -> Body:
        """A 16-node character standing at ``position`` under motor control (a
        :class:`~twig.motor.Character`), or a rag doll with ``control=False``; see
        :func:`twig.motor.add_character` and :func:`twig.bodies.humanoid.add_humanoid`."""
        from twig.motor import add_character

        return add_character(self, name, position, **kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.systems: dict[str, Any] = {}
        """The systems made so far, by name: ``"motor"``, ``"behavior"``, ``"hybrid"``
        (each made on first use by its property; read this to ask without making one)."""

    @property
    def motor(self) -> MotorSystem:
        """The motor system (characters' control), made with the first character."""
        motor = self.systems.get("motor")
        if motor is None:
            from twig.motor import MotorSystem

            motor = self.systems["motor"] = MotorSystem(self)
        return motor

    @property
    def behavior(self) -> BehaviorSystem:
        """The behaviour system (autonomous characters' minds), made on first use; see
        :func:`twig.behavior.add_behaviors`."""
        system = self.systems.get("behavior")
        if system is None:
            from twig.behavior import BehaviorSystem

            system = self.systems["behavior"] = BehaviorSystem(self)
        return system

    @property
    def hybrid(self) -> HybridSystem:
        """The hybrid control system (DANCE supervisors), made on first use; see
        :mod:`twig.hybrid`."""
        system = self.systems.get("hybrid")
        if system is None:
            from twig.hybrid.supervisor import HybridSystem

            system = self.systems["hybrid"] = HybridSystem(self)
        return system

    def body(self, name: str) -> Body:
        """The body called ``name`` (a :class:`~twig.motor.Character` if it is one)."""
        body = super().body(name)
        motor = self.systems.get("motor")
        if motor is not None and motor.controls(body):
            from twig.motor import Character

            return Character(self, body.id)
        return body

    @property
    def characters(self) -> list[Body]:
        """The controlled characters, in creation order."""
        motor = self.systems.get("motor")
        if motor is None:
            return []
        from twig.motor import Character

        return [Character(self, b.id) for b in self.bodies if motor.controls(b)]

    def snapshot(self) -> WorldSnapshot:
        """The whole state of the world: physics and every system above it (motor tasks and
        actions, behaviours, attention and memory, scripts, hybrid control, the random
        generator); see :mod:`twig.snapshot`. :meth:`restore` of it gives the same future,
        bit for bit."""
        from twig import snapshot

        return snapshot.capture(self)

    def restore(self, snap: WorldSnapshot | Snapshot) -> None:
        """Return to a :meth:`snapshot`. Handles (actions, characters, behaviours) keep their
        identity and get their state of that tick back; bodies removed since come back, and
        what was made since is gone. A physics-only ``Snapshot`` restores physics only."""
        from twig import snapshot

        if isinstance(snap, snapshot.WorldSnapshot):
            snapshot.restore(self, snap)
        else:
            super().restore(snap)

    def save(self, path: str | Path) -> None:
        """Write the whole world (model and state) to ``path``; :meth:`load` in any process
        gives a world whose future is this one's, bit for bit."""
        from twig.snapshot import save

        save(self, Path(path))

    @classmethod
    def load(cls, path: str | Path) -> World:
        """A world written by :meth:`save` (a ``TwigError`` if ``path`` is not one)."""
        from twig.snapshot import load

        return load(Path(path))

    def add_ball(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """A ball (one node, a sphere); see :func:`twig.bodies.props.add_ball`."""
        return add_ball(self, name, position, **kwargs)

    def add_block(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """A rigid box prop; see :func:`twig.bodies.props.add_block`."""
        return add_block(self, name, position, **kwargs)

    def add_weight(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """The 16-ton weight of Fig. 5; see :func:`twig.bodies.props.add_weight`."""
        return add_weight(self, name, position, **kwargs)

    def add_doll(self, name: str, position: ArrayLike = (0.0, 0.0, 0.0), **kwargs) -> Body:
        """A rag doll (a small passive humanoid); see :func:`twig.bodies.props.add_doll`."""
        return add_doll(self, name, position, **kwargs)

    def add_merry_go_round(self, name: str, position: ArrayLike = (0.0, 0.0, 0.0),
                           **kwargs) -> Body:
        """The playground's merry-go-round (18 nodes, 41 links, 25 bars); see
        :func:`twig.bodies.merry_go_round.add_merry_go_round`."""
        return add_merry_go_round(self, name, position, **kwargs)

    def add_chair(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """A chair with a ``seat`` chart; see :func:`twig.bodies.furniture.add_chair`."""
        return add_chair(self, name, position, **kwargs)

    def add_table(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """A table with a ``top`` chart; see :func:`twig.bodies.furniture.add_table`."""
        return add_table(self, name, position, **kwargs)

    def add_clipboard(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """A clipboard with a ``front`` chart; see :func:`twig.bodies.stationery.add_clipboard`."""
        return add_clipboard(self, name, position, **kwargs)

    def add_pen(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """A pen with nodes ``tip`` and ``top``; see :func:`twig.bodies.stationery.add_pen`."""
        return add_pen(self, name, position, **kwargs)

    def add_box_model(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """A prop from a mesh file, colliding as its oriented bounding box; see
        :func:`twig.bodies.mesh.add_box_model`."""
        return add_box_model(self, name, position, **kwargs)

    def atlas(self, body: Body | str) -> dict[str, Chart]:
        """The named charts of ``body`` (a handle or a name) as its nodes are now (Horswill
        VIII.A); see :mod:`twig.bodies.charts`."""
        return atlas(self.body(body) if isinstance(body, str) else body)

    def run(self, seconds: float, progress: bool = False) -> None:
        """Advance ``seconds`` of simulated time (rounded to whole ticks).

        ``progress`` shows a progress bar on the terminal, on stderr (for long runs).
        """
        ticks = round(as_positive(seconds, "seconds") / self.dt)
        if not progress:
            self.step(ticks)
            return
        from rich.console import Console
        from rich.progress import Progress

        with Progress(transient=True, console=Console(stderr=True)) as bar:
            task = bar.add_task(f"simulating {seconds:g} s", total=ticks)
            chunk = max(1, ticks // 100)
            done = 0
            while done < ticks:
                n = min(chunk, ticks - done)
                self.step(n)
                done += n
                bar.update(task, completed=done)

    def record(self, every: int = 1) -> Recording:
        """Start recording node positions every ``every`` ticks (see DESIGN's recording format).

        The returned :class:`~twig.export.recording.Recording` fills as the world steps;
        ``recording.arrays()`` gives ``t``, ``pos``, ``node_name``... and ``save(path)`` an NPZ.
        """
        from twig.export.recording import Recording

        return Recording(self, every=every)


# The layers above physics add their commands and fields to characters as they are imported
# (play-clip, motion-graph-walk, kid.behavior...): every world can hold characters.
import twig.behavior  # noqa: E402
import twig.hybrid  # noqa: E402, F401
