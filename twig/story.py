"""The story ``twig run`` tells: a short timeline of what happened, from the world's events.

:class:`Story` listens to ``world.events`` (the stream ``--trace`` writes, DESIGN.md "Trace")
and tells, one line each: what each autonomous character starts doing, behaviour switches
(goals level; at the motor level only departures from the behaviour it started with, with how
long they lasted), focus shifts that last, pain (with the withdrawal it caused), grabs and
releases (a release and re-grab of the same object is a re-grip, not told), hugs joined and
ended, controller hand-overs, falls, and actions that failed for a reason other than being
replaced by a newer command. Contacts are not told (pain is the contact worth telling).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from twig.events import Event

if TYPE_CHECKING:
    from twig.physics import PhysicsWorld

TOLD_TYPES = ("behavior", "focus", "pain", "action", "grab", "release", "hug", "controller",
              "fall")
"""The event types a story listens to (contacts are left out: there are many, and gathering
them costs time)."""

FOCUS_SECONDS = 2.0
"""A focus shift is told when the new focus lasts at least this long (s)."""

MERGE_SECONDS = 0.5
"""Events of one character this close (s) are told on one line: pain and the withdrawal it
causes, a behaviour switch and the focus it brings, a release and a re-grab."""

MAX_LINES = 30
"""Lines told at most; the rest are counted (``--trace`` writes them all)."""


@dataclass
class _Line:
    t: float
    text: str


class Story:
    """Collect ``world``'s told events from now until :meth:`close`; :meth:`lines` tells them.

    Usable as a context manager.
    """

    def __init__(self, world: PhysicsWorld, max_lines: int = MAX_LINES) -> None:
        self.world = world
        self.max_lines = max_lines
        self.events: list[Event] = []
        self._subscription = world.events.subscribe(self.events.append, types=TOLD_TYPES)

    def close(self) -> None:
        """Stop listening (idempotent)."""
        self._subscription.cancel()

    def __enter__(self) -> Story:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def lines(self) -> list[str]:
        """The timeline: ``"   5.43 s  kid hurt by kid2 (7.8 J): pain-withdrawal for 0.8 s"``
        lines in time order, at most ``max_lines`` (the last one then counts the rest)."""
        told = _tell(self.events, self.world.time)
        told.sort(key=lambda line: line.t)
        out = [f"{line.t:7.2f} s  {line.text}" for line in told]
        if len(out) > self.max_lines:
            rest = len(out) - self.max_lines + 1
            out = [*out[:self.max_lines - 1],
                   f"  ... and {rest} more (every event: twig run ... --trace FILE.jsonl)"]
        return out


def _tell(events: list[Event], end: float) -> list[_Line]:
    """The told lines of ``events`` (a run that ended at ``end`` s), not yet sorted."""
    if not events:
        return []
    start = events[0]["t"]
    opening = [e for e in events if e["t"] == start and e["type"] in ("behavior", "focus")]
    rest = [e for e in events if not (e["t"] == start and e["type"] in ("behavior", "focus"))]
    lines = _opening(opening, start)
    resting = {e["agent"]: e["behavior"] for e in opening
               if e["type"] == "behavior" and e["level"] == "motor"}
    focus = {e["agent"]: e["object"] for e in opening if e["type"] == "focus"}
    used: set[int] = set()
    for k, e in enumerate(rest):
        if k in used:
            continue
        kind = e["type"]
        if kind == "behavior":
            text = _switch(e, k, rest, used, resting, focus, end)
        elif kind == "pain":
            text = _pain(e, k, rest, used, resting, end)
        elif kind == "focus":  # told with the goals switch of the same tick, if any
            switched = any(rest[j]["level"] == "goals"
                           for j in _same_tick(rest, k, e["agent"], "behavior"))
            text = "" if switched else _focus(e, k, rest, focus, end)
        elif kind in ("grab", "release"):
            text = _hand(e, k, rest, used)
        elif kind == "hug":
            text = _hug(e, rest[:k])
        elif kind == "action":
            text = _failure(e, k, rest, used)
        elif kind == "controller":
            text = f"{e['agent']}: {e['controller']} control ({e['reason']})"
        else:  # fall
            text = f"{e['agent']} {e.get('status', 'falls')}"
        if text:
            lines.append(_Line(e["t"], text))
    return lines


def _opening(events: list[Event], t: float) -> list[_Line]:
    """One line per autonomous character: what it starts doing, and its focus."""
    agents: dict[str, dict[str, str]] = {}
    for e in events:
        seen = agents.setdefault(e["agent"], {})
        if e["type"] == "focus":
            seen["focus"] = e["object"]
        else:
            seen.setdefault(e["behavior"], e["level"])
    parts = []
    for name, seen in agents.items():
        focus = seen.pop("focus", None)
        goals = [b for b, level in seen.items() if level == "goals"]
        doing = ", ".join(goals or list(seen)) or "nothing"
        parts.append(f"{name} {doing}" + (f" (focus {focus})" if focus else ""))
    return [_Line(t, "; ".join(parts))] if parts else []


def _later(events: list[Event], k: int, agent: str, kinds: tuple[str, ...],
           within: float = MERGE_SECONDS) -> list[int]:
    """Indices after ``k`` of ``agent``'s events of ``kinds`` at most ``within`` s later."""
    t = events[k]["t"]
    out = []
    for j in range(k + 1, len(events)):
        if events[j]["t"] - t > within:
            break
        if events[j].get("agent") == agent and events[j]["type"] in kinds:
            out.append(j)
    return out


def _until(events: list[Event], k: int, same, end: float) -> float:
    """Seconds from event ``k`` to the next event for which ``same(event)`` holds (or
    ``end``)."""
    for e in events[k + 1:]:
        if same(e):
            return e["t"] - events[k]["t"]
    return end - events[k]["t"]


def _switch(e: Event, k: int, events: list[Event], used: set[int], resting: dict[str, str],
            focus: dict[str, str], end: float) -> str:
    """A behaviour switch: goals level always; motor level only away from where it started,
    with how long it lasted."""
    agent, level = e["agent"], e["level"]
    if level == "motor":
        if e["behavior"] == resting.get(agent):
            return ""
        lasted = _until(events, k, lambda x: x["type"] == "behavior" and x["agent"] == agent
                        and x["level"] == "motor", end)
        return f"{agent}: {e['behavior']} for {lasted:.1f} s"
    text = f"{agent}: {e['behavior']}"
    for j in _same_tick(events, k, agent, "focus"):
        used.add(j)
        focus[agent] = events[j]["object"]
        text += f", focus {events[j]['object']}"
    return text


def _same_tick(events: list[Event], k: int, agent: str, kind: str) -> list[int]:
    """Indices of ``agent``'s other events of ``kind`` at event ``k``'s time."""
    t = events[k]["t"]
    return [j for j, x in enumerate(events) if j != k and x["t"] == t
            and x.get("agent") == agent and x["type"] == kind]


def _pain(e: Event, k: int, events: list[Event], used: set[int], resting: dict[str, str],
          end: float) -> str:
    """Pain, with more pain from the same source and the motor switch it caused merged in."""
    agent = e["agent"]
    energy = e["energy"]
    text = f"{agent} hurt by {e['source']}"
    for j in _later(events, k, agent, ("pain", "behavior")):
        if j in used:
            continue
        x = events[j]
        if x["type"] == "pain" and x["source"] == e["source"]:
            used.add(j)
            energy = max(energy, x["energy"])
        elif x["type"] == "behavior" and x["level"] == "motor" \
                and x["behavior"] != resting.get(agent):
            used.add(j)
            lasted = _until(events, j, lambda y: y["type"] == "behavior"
                            and y["agent"] == agent and y["level"] == "motor", end)
            return f"{text} ({energy:.1f} J): {x['behavior']} for {lasted:.1f} s"
    return f"{text} ({energy:.1f} J)"


def _focus(e: Event, k: int, events: list[Event], focus: dict[str, str], end: float) -> str:
    """A focus shift, told when it lasts and is not where the focus already was."""
    agent = e["agent"]
    lasted = _until(events, k, lambda x: x["type"] == "focus" and x["agent"] == agent, end)
    if lasted < FOCUS_SECONDS or focus.get(agent) == e["object"]:
        return ""
    focus[agent] = e["object"]
    return f"{agent}'s attention turns to {e['object']} for {lasted:.1f} s"


def _hand(e: Event, k: int, events: list[Event], used: set[int]) -> str:
    """A grab or a release; a release and a re-grab of the same object are a re-grip."""
    agent, item = e["agent"], e["object"]
    if e["type"] == "release":
        for j in _later(events, k, agent, ("grab",)):
            if events[j]["object"] == item and j not in used:
                used.add(j)
                return ""
        return f"{agent} lets go of {item}"
    return f"{agent} grabs {item} ({e['hand']} hand)"


def _hug(e: Event, before: list[Event]) -> str:
    """Hugs joined and ended (a hug's start is told by the behaviour or command that asked)."""
    agent, partner = e["agent"], e["object"]
    if e["status"] == "joined":
        return f"{agent} hugs {partner}"
    if e["status"] != "end":
        return ""
    joined = [x["t"] for x in before if x["type"] == "hug" and x["agent"] == agent
              and x["status"] == "joined"]
    if joined:
        return f"{agent} lets go of {partner} after {e['t'] - joined[-1]:.1f} s"
    return f"{agent}'s hug of {partner} ends before their arms met"


def _failure(e: Event, k: int, events: list[Event], used: set[int]) -> str:
    """An action that failed for a reason of its own (not replaced by a newer command);
    the same failure repeated within a second is counted, not told again."""
    reason = e.get("reason") or ""
    if e["status"] != "failed" or reason.startswith("replaced by"):
        return ""
    again = 0
    t = e["t"]
    for j in range(k + 1, len(events)):
        x = events[j]
        if x["t"] - t > 1.0:
            break
        if x["type"] == "action" and x.get("status") == "failed" and x["agent"] == e["agent"] \
                and x["name"] == e["name"] and x.get("reason") == reason:
            used.add(j)
            again += 1
            t = x["t"]
    times = f" ({again + 1} times)" if again else ""
    return f"{e['agent']}'s {e['name']} failed{times}: {reason}"
