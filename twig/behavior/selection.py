"""Behaviours and their selection (Horswill 2009, section IX; Blumberg's ethological control).

A :class:`Behavior` computes an *activation level*, "a rough measure of how useful it would be
to fire the behavior at the moment", and, while it is selected, commands for the level below
(a goal sets the approach target; a motor behaviour commands the character). Its hooks, after
py_trees: :meth:`~Behavior.activation` every tick, :meth:`~Behavior.initialise` when it
wins, :meth:`~Behavior.update` every tick it holds, :meth:`~Behavior.terminate` when it
loses.

A :class:`Selector` is one level of the hierarchy: its behaviours are siblings that compete,
the highest activation wins, and after each switch the winner cannot be displaced for a
refractory period (0.2 to 0.75 s in the paper) so selection does not thrash. A *reflex*
(``reflex = True``: pain withdrawal) may displace the winner during the refractory period.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from twig.errors import TwigError

if TYPE_CHECKING:
    from twig.behavior.agent import Agent

DEFAULT_REFRACTORY = 0.5
"""Seconds after a switch during which a level keeps its winner (Horswill: 0.2-0.75 s)."""


class Behavior:
    """One behaviour: subclass it and override the hooks you need.

    ``name`` (a class attribute, lowercase words joined by ``-``) is what traces, the viewer
    and ``kid.behavior`` show. An instance belongs to one character's network, so it may keep
    state on ``self``.

    Examples
    --------
    >>> class Wave(Behavior):
    ...     name = "wave"
    ...     def activation(self, agent):
    ...         return 0.8 if agent.focus == "parent" else 0.0
    ...     def initialise(self, agent):
    ...         agent.character.stop()
    """

    name: ClassVar[str] = "behavior"
    level: ClassVar[str] = "goals"
    """The level it competes in: ``"goals"`` (commands the approach) or ``"motor"``
    (commands the character)."""
    reflex: ClassVar[bool] = False
    """A reflex may win during its level's refractory period (pain withdrawal)."""

    def activation(self, agent: Agent) -> float:
        """Utility of firing now (dimensionless; 0 = useless). Called every tick."""
        return 0.0

    def initialise(self, agent: Agent) -> None:
        """Called once when this behaviour wins its level."""

    def update(self, agent: Agent) -> None:
        """Called every tick while selected, after :meth:`initialise` on the first: write
        commands for the level below (the approach request) or the character."""

    def terminate(self, agent: Agent) -> None:
        """Called once when another behaviour displaces this one: undo its commands."""

    def interests(self) -> dict[str, tuple[float, float, float]]:
        """Appraisals this behaviour gives objects, name -> (salience, valence, monitoring
        priority) (a ball is interesting to ``play-ball``); default none."""
        return {}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class Selector:
    """One level of a behaviour hierarchy: siblings compete, highest activation wins.

    Parameters
    ----------
    name
        The level's name (``"goals"``, ``"motor"``), in trace events as ``level``.
    behaviors
        The competing siblings; ties go to the current winner, then to the earlier sibling.
    refractory
        Seconds after a switch during which only a reflex may displace the winner.
    """

    def __init__(self, name: str, behaviors: Sequence[Behavior],
                 refractory: float = DEFAULT_REFRACTORY) -> None:
        if not behaviors:
            raise TwigError(f"behaviour level {name!r} needs at least one behaviour")
        names = [b.name for b in behaviors]
        if len(set(names)) != len(names):
            raise TwigError(f"behaviour level {name!r} has two behaviours with one name: "
                            f"{names}")
        if not (isinstance(refractory, int | float) and 0 <= refractory < math.inf):
            raise TwigError(f"behaviour level {name!r}: refractory must be a number of "
                            f"seconds >= 0, got {refractory!r}")
        self.name = name
        self.behaviors = list(behaviors)
        self.refractory = float(refractory)
        self.current: Behavior | None = None
        self._current_index = -1
        self.switched_at = -math.inf
        self.activations = [0.0] * len(self.behaviors)

    def choose(self, agent: Agent, now: float) -> Behavior:
        """Compute every activation and return this tick's winner (no hooks called)."""
        acts = self.activations = [float(b.activation(agent)) for b in self.behaviors]
        top = max(acts)
        current = self.current
        if current is None:
            return self.behaviors[acts.index(top)]
        mine = acts[self._current_index]
        if top <= mine:
            return current
        best = acts.index(top)
        if now - self.switched_at >= self.refractory - 1e-9:
            return self.behaviors[best]
        reflexes = [k for k, b in enumerate(self.behaviors) if b.reflex and acts[k] > mine]
        if reflexes and not current.reflex:
            return self.behaviors[max(reflexes, key=acts.__getitem__)]
        return current

    def tick(self, agent: Agent, now: float) -> bool:
        """Select and run the winner's hooks; returns True when the winner changed."""
        winner = self.choose(agent, now)
        switched = winner is not self.current
        if switched:
            if self.current is not None:
                self.current.terminate(agent)
            self.current = winner
            self._current_index = self.behaviors.index(winner)
            self.switched_at = now
            winner.initialise(agent)
        winner.update(agent)
        return switched

    def activation_of(self) -> dict[str, float]:
        """The last tick's activations by behaviour name."""
        return {b.name: a for b, a in zip(self.behaviors, self.activations, strict=True)}

    def __repr__(self) -> str:
        now = self.current.name if self.current else None
        return f"<Selector {self.name!r}: {[b.name for b in self.behaviors]}, now {now!r}>"
