"""Selection among siblings: highest activation wins, refractory inhibition, reflexes; tick by
tick with scripted stand-in behaviours on a real character."""

import pytest

import twig
from twig.behavior import Behavior, Selector
from twig.errors import TwigError


class Scripted(Behavior):
    """A stand-in whose activation is given tick by tick; it logs its hooks."""

    def __init__(self, name, values, log, reflex=False):
        self.name = name  # instance attribute: one class, many stand-ins
        self.values = values
        self.log = log
        self.reflex = reflex
        self.tick = 0

    def activation(self, agent):
        value = self.values[min(self.tick, len(self.values) - 1)]
        self.tick += 1
        return value

    def initialise(self, agent):
        self.log.append(("initialise", self.name, agent.now))

    def terminate(self, agent):
        self.log.append(("terminate", self.name, agent.now))


def run(levels_values, refractory, ticks, reflex=()):
    world = twig.World(seed=0)
    kid = world.add_humanoid("kid", height=1.1)
    log, events = [], []
    world.events.subscribe(events.append, types=["behavior"])
    stand_ins = [Scripted(n, v, log, reflex=n in reflex) for n, v in levels_values.items()]
    agent = world.behavior.add(kid, [Selector("goals", stand_ins, refractory=refractory)])
    winners = []
    for _ in range(ticks):
        world.step()
        winners.append(agent.behavior)
    return winners, log, events


def test_highest_activation_wins_and_ties_keep_the_current_winner():
    winners, log, events = run({"a": [0.5, 0.5, 0.2, 0.9, 0.9],
                                "b": [0.1, 0.9, 0.9, 0.9, 0.1]}, refractory=0.0, ticks=5)
    assert winners == ["a", "b", "b", "b", "a"]  # tick 4: a tie at 0.9 keeps b
    assert [e["behavior"] for e in events] == ["a", "b", "a"]
    assert [e["level"] for e in events] == ["goals"] * 3
    assert [(h, n) for h, n, _ in log] == [("initialise", "a"), ("terminate", "a"),
                                           ("initialise", "b"), ("terminate", "b"),
                                           ("initialise", "a")]


def test_switching_is_inhibited_for_the_refractory_period():
    # b is higher from tick 2 on; a won at tick 1 (t = 0), so with a refractory period of
    # 10 ticks (1/6 s) b takes over at the first tick at least 10 ticks after that switch.
    dt = 1 / 60
    winners, _, events = run({"a": [1.0, 0.2], "b": [0.0, 0.9]}, refractory=10 * dt,
                             ticks=15)
    assert winners == ["a"] * 10 + ["b"] * 5
    assert [(e["behavior"], e["t"]) for e in events] == [("a", 0.0), ("b", round(10 * dt, 6))]


def test_the_refractory_period_applies_after_every_switch():
    dt = 1 / 60
    # a, then b (after 6 ticks of refractory), then a wants back at once: held 6 more ticks.
    winners, _, _ = run({"a": [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
                         "b": [0.0, 0.5]}, refractory=6 * dt, ticks=16)
    assert winners == ["a"] * 6 + ["b"] * 6 + ["a"] * 4


def test_a_reflex_preempts_during_the_refractory_period():
    winners, _, _ = run({"a": [1.0], "flinch": [0.0, 0.0, 2.0, 2.0, 0.0], "b": [0.0]},
                        refractory=0.5, ticks=6, reflex=("flinch",))
    assert winners == ["a", "a", "flinch", "flinch", "flinch", "flinch"]


def test_a_level_needs_distinct_behaviours_and_a_valid_refractory_period():
    with pytest.raises(TwigError, match="at least one"):
        Selector("goals", [])
    with pytest.raises(TwigError, match="two behaviours with one name"):
        Selector("goals", [Scripted("x", [0], []), Scripted("x", [0], [])])
    with pytest.raises(TwigError, match="refractory"):
        Selector("goals", [Scripted("x", [0], [])], refractory=-1)
