"""Behaviours by name, and building a character's network from a scene's ``behaviors`` field
or Python (:func:`add_behaviors`).

A spec is a list of behaviour names or a table of name -> settings (the behaviour class's
keyword parameters), plus these agent options: ``carry`` (an object name, or ``{object, hand}``
held from the start), ``parent`` (the attachment figure; default ``hug-parent``'s parent),
``refractory`` (seconds, every level) and ``interests`` (name or body type -> ``[salience,
valence, monitoring]``). ``freeze``, ``pain-withdrawal`` and ``approach`` are always present.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from twig.behavior.playground import Fight, HugParent, PlayBall
from twig.behavior.selection import DEFAULT_REFRACTORY, Behavior, Selector
from twig.behavior.standard import Approach, Freeze, PainWithdrawal, SitDown, StandUp
from twig.errors import TwigError

if TYPE_CHECKING:
    from twig.behavior.agent import Agent
    from twig.motor import Character

BEHAVIORS: dict[str, type[Behavior]] = {
    cls.name: cls for cls in (Freeze, PainWithdrawal, Approach, SitDown, StandUp, PlayBall,
                              HugParent, Fight)}
"""Behaviour classes by name; :func:`register` adds yours."""
ALWAYS = ("freeze", "pain-withdrawal", "approach")
"""Motor behaviours every autonomous character has."""
OPTIONS = ("carry", "parent", "refractory", "interests")
LEVELS = ("goals", "motor")


class BehaviorError(TwigError):
    """A behaviour spec names an unknown behaviour or gives a bad setting."""


def register(cls: type[Behavior]) -> type[Behavior]:
    """Make ``cls`` available by its ``name`` to scene files and :func:`add_behaviors`
    (usable as a class decorator)."""
    if not (isinstance(cls, type) and issubclass(cls, Behavior)):
        raise BehaviorError(f"register() takes a Behavior subclass, got {cls!r}")
    BEHAVIORS[cls.name] = cls
    return cls


def make(name: str, settings: Mapping[str, Any] | None = None) -> Behavior:
    """A behaviour by name with its settings (the class's keyword parameters)."""
    cls = BEHAVIORS.get(name)
    if cls is None:
        raise BehaviorError(f"unknown behaviour {name!r}; known: {', '.join(sorted(BEHAVIORS))}"
                            f" (options: {', '.join(OPTIONS)})")
    settings = dict(settings or {})
    params = inspect.signature(cls).parameters
    for key in settings:
        if key not in params or key == "self":
            raise BehaviorError(f"behaviour {name!r}: unknown setting {key!r} (settings: "
                                f"{', '.join(params) or 'none'})")
    try:
        return cls(**settings)
    except (TypeError, ValueError) as e:
        raise BehaviorError(f"behaviour {name!r}: bad settings {settings}: {e}") from None


def add_behaviors(character: Character, spec: Sequence[str] | Mapping[str, Any]) -> Agent:
    """Make ``character`` autonomous with the behaviours of ``spec`` (see the module doc);
    returns its :class:`~twig.behavior.agent.Agent`."""
    if isinstance(spec, str) or not isinstance(spec, Sequence | Mapping):
        raise BehaviorError(f"behaviors: expected a list of names or a table, got {spec!r}")
    table = dict(spec) if isinstance(spec, Mapping) else {name: {} for name in spec}
    options = {k: table.pop(k) for k in OPTIONS if k in table}
    behaviors = [make(name, _settings(name, s)) for name, s in table.items()]
    have = {b.name for b in behaviors}
    behaviors += [make(name) for name in ALWAYS if name not in have]
    refractory = options.get("refractory", DEFAULT_REFRACTORY)
    levels = []
    for level in LEVELS:
        members = [b for b in behaviors if b.level == level]
        if members:
            levels.append(Selector(level, members, refractory))
    strange = [b.name for b in behaviors if b.level not in LEVELS]
    if strange:
        raise BehaviorError(f"behaviours {strange} have a level other than {LEVELS}")
    interests: dict[str, tuple[float, float, float]] = {}
    for b in behaviors:
        interests.update(b.interests())
    interests.update(_interests(options.get("interests", {})))
    parent = options.get("parent")
    if parent is None:
        parent = next((b.parent for b in behaviors if isinstance(b, HugParent)), None)
    return character.world.behavior.add(character, levels, interests=interests,
                                        parent=parent, carry=_carry(options.get("carry")))


def _settings(name: str, settings: Any) -> Mapping[str, Any]:
    if not isinstance(settings, Mapping):
        raise BehaviorError(f"behaviour {name!r}: settings must be a table, got {settings!r}")
    return settings


def _interests(table: Any) -> dict[str, tuple[float, float, float]]:
    if not isinstance(table, Mapping):
        raise BehaviorError(f"interests: expected a table of name -> [salience, valence, "
                            f"monitoring], got {table!r}")
    out = {}
    for name, v in table.items():
        if not (isinstance(v, Sequence) and len(v) == 3
                and all(isinstance(x, int | float) and not isinstance(x, bool) for x in v)):
            raise BehaviorError(f"interests: {name!r}: expected [salience, valence, "
                                f"monitoring], got {v!r}")
        out[str(name)] = (float(v[0]), float(v[1]), float(v[2]))
    return out


def _carry(value: Any) -> tuple[str, str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value, "left"
    if isinstance(value, Mapping) and isinstance(value.get("object"), str) and set(
            value) <= {"object", "hand"} and value.get("hand", "left") in ("left", "right"):
        return value["object"], value.get("hand", "left")
    raise BehaviorError(f"carry: expected an object name or {{object = NAME, hand = "
                        f"\"left\"|\"right\"}}, got {value!r}")


REFERENCES = ("ball", "parent", "rival", "chair")
"""Behaviour settings that name objects of the world."""


def missing_objects(agent: Agent) -> list[str]:
    """Object names ``agent``'s behaviours, carry and parent refer to that the world lacks."""
    names = {b.name for b in agent.system.world.bodies}
    wanted = [getattr(b, key) for lv in agent.levels for b in lv.behaviors
              for key in REFERENCES if isinstance(getattr(b, key, None), str)]
    if agent.carry is not None:
        wanted.append(agent.carry[0])
    return [n for n in wanted if n not in names]
