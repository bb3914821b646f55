"""The world's event stream: what happened, when, as flat JSON-ready records.

Every layer reports through one :class:`EventBus` per world (``world.events``): physics emits
``pain`` and ``contact`` events, motor control ``action``, ``grab``, ``release`` and ``hug``,
behaviour ``behavior`` and ``focus``. Subscribers (the trace writer, the server's event streams,
the viewer) receive each event as a dict ``{"t": seconds, "type": ..., **fields}`` in the trace
format of DESIGN.md, in emission order.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

Event = dict[str, Any]
"""One event: ``t`` (simulated seconds), ``type`` and the type's fields (JSON values only)."""


class Subscription:
    """Handle of one subscriber; :meth:`cancel` stops its deliveries."""

    def __init__(self, bus: EventBus, callback: Callable[[Event], None],
                 types: frozenset[str] | None) -> None:
        self._bus = bus
        self.callback = callback
        self.types = types

    def cancel(self) -> None:
        """Stop delivering events to this subscriber (idempotent)."""
        if self in self._bus._subscribers:
            self._bus._subscribers.remove(self)


class EventBus:
    """Fan-out of events to subscribers, each filtered by event type.

    Parameters
    ----------
    clock
        Returns the current simulated time in seconds (stamped on each event as ``t``).
    """

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._subscribers: list[Subscription] = []

    def subscribe(self, callback: Callable[[Event], None],
                  types: Collection[str] | None = None) -> Subscription:
        """Call ``callback(event)`` for every event (of ``types`` only, if given)."""
        sub = Subscription(self, callback, None if types is None else frozenset(types))
        self._subscribers.append(sub)
        return sub

    def wants(self, type: str) -> bool:
        """Whether any subscriber listens to ``type`` (lets emitters skip building events)."""
        return any(s.types is None or type in s.types for s in self._subscribers)

    def emit(self, type: str, **fields: Any) -> Event:
        """Deliver ``{"t": now, "type": type, **fields}`` to the matching subscribers."""
        event = {"t": round(self._clock(), 6), "type": type, **fields}
        for sub in list(self._subscribers):
            if sub.types is None or type in sub.types:
                sub.callback(event)
        return event
