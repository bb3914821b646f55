"""``twig.World``: the physics world with the builders and the recording users reach for.

Later layers (characters, behaviours) add their stages through the world's tick hooks; physics
stays the only code that moves nodes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from numpy.typing import ArrayLike

from twig.bodies.cloth import add_cloth
from twig.bodies.props import add_ball, add_block, add_weight
from twig.bodies.simple import add_rope, add_stick, add_tetrahedron
from twig.physics import Body, PhysicsWorld
from twig.physics.columns import Columns
from twig.physics.validate import as_positive

if TYPE_CHECKING:
    from twig.export.recording import Recording
    from twig.motor import MotorSystem
    from twig.physics import Snapshot


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

    @property
    def motor(self) -> MotorSystem:
        """The motor system (characters' control), made with the first character."""
        motor = self.__dict__.get("_motor")
        if motor is None:
            from twig.motor import MotorSystem

            motor = self._motor = MotorSystem(self)
        return motor

    def body(self, name: str) -> Body:
        """The body called ``name`` (a :class:`~twig.motor.Character` if it is one)."""
        body = super().body(name)
        motor = self.__dict__.get("_motor")
        if motor is not None and motor.controls(body):
            from twig.motor import Character

            return Character(self, body.id)
        return body

    @property
    def characters(self) -> list[Body]:
        """The controlled characters, in creation order."""
        motor = self.__dict__.get("_motor")
        if motor is None:
            return []
        return [b for b in self.bodies if motor.controls(b)]

    def _state_tables(self) -> dict[str, Columns]:
        tables = super()._state_tables()
        motor = self.__dict__.get("_motor")
        if motor is not None:
            tables["motor"] = motor.table
        return tables

    def restore(self, snap: Snapshot) -> None:
        """Return to a :meth:`snapshot`; running actions fail ("the world was restored")."""
        motor = self.__dict__.get("_motor")
        if motor is not None:
            motor.reset("the world was restored")
        super().restore(snap)

    def add_ball(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """A ball (one node, a sphere); see :func:`twig.bodies.props.add_ball`."""
        return add_ball(self, name, position, **kwargs)

    def add_block(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """A rigid box prop; see :func:`twig.bodies.props.add_block`."""
        return add_block(self, name, position, **kwargs)

    def add_weight(self, name: str, position: ArrayLike, **kwargs) -> Body:
        """The 16-ton weight of Fig. 5; see :func:`twig.bodies.props.add_weight`."""
        return add_weight(self, name, position, **kwargs)

    def run(self, seconds: float, progress: bool = False) -> None:
        """Advance ``seconds`` of simulated time (rounded to whole ticks).

        ``progress`` shows a progress bar on the terminal (for long runs).
        """
        ticks = round(as_positive(seconds, "seconds") / self.dt)
        if not progress:
            self.step(ticks)
            return
        from rich.progress import Progress

        with Progress(transient=True) as bar:
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
