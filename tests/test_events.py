"""The event stream and actions: filtering, order, one terminal status per action."""

import twig
from twig.action import Action
from twig.events import EventBus


def test_bus_delivers_in_order_and_filters_by_type():
    clock = [0.5]
    bus = EventBus(lambda: clock[0])
    everything, pains = [], []
    bus.subscribe(everything.append)
    sub = bus.subscribe(pains.append, types={"pain"})
    bus.emit("contact", a="x", b="y", energy=2.0)
    bus.emit("pain", agent="kid", level=3.0)
    sub.cancel()
    sub.cancel()
    bus.emit("pain", agent="kid", level=1.0)
    assert [e["type"] for e in everything] == ["contact", "pain", "pain"]
    assert pains == [{"t": 0.5, "type": "pain", "agent": "kid", "level": 3.0}]
    assert bus.wants("pain") and not EventBus(lambda: 0.0).wants("pain")


def test_action_ends_once_and_reports_start_and_end():
    bus = EventBus(lambda: 0.0)
    seen = []
    bus.subscribe(seen.append)
    act = Action("walk-to", "kid", bus)
    ended = []
    act.add_done_callback(ended.append)
    assert not act.done and act.status == "running"
    act.fail("blocked by a wall")
    act.succeed()
    assert act.status == "failed" and act.reason == "blocked by a wall" and ended == [act]
    assert [e["status"] for e in seen] == ["start", "failed"]
    late = []
    act.add_done_callback(late.append)
    assert late == [act]
    assert Action.failed("reach", "kid", "no object called 'x'").status == "failed"


def test_world_emits_pain_and_contact_events():
    world = twig.World()
    kid = world.add_humanoid("kid", height=1.1, control=False)
    world.lock_nodes(kid.nodes)
    world.add_block("crate", position=(0, 3, 0), size=(0.4, 0.4, 0.4), mass=60)
    events = []
    world.events.subscribe(events.append, types={"pain", "contact"})
    world.run(seconds=1.0)
    pains = [e for e in events if e["type"] == "pain"]
    assert pains and pains[0]["agent"] == "kid" and pains[0]["source"] == "crate"
    assert any(e["type"] == "contact" and {e["a"], e["b"]} == {"kid", "crate"} for e in events)
    assert all(e["energy"] >= world.contact_event_energy for e in events
               if e["type"] == "contact")
