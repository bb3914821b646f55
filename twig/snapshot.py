"""Whole-world snapshots: the physics state and the state of every system above it.

``twig.World.snapshot()`` gives a :class:`WorldSnapshot`; ``restore`` of it gives the same
future, bit for bit (the state hash of every later tick equals the uninterrupted run's).

The physics tables are copied by :func:`twig.physics.snapshot.take_snapshot`. Everything else
the world holds (the motor system and its tasks and actions, behaviours, attention and memory,
script interpreters, hybrid supervisors, event subscriptions, the stages' hooks, the settings)
is captured generically: starting from the world's attributes, every reachable object of twig's
own classes has its attributes copied (lists, dicts, sets, tuples and writable arrays are
copied; references between captured objects are kept as references; a table, the motor's,
is captured as the physics tables are: its state and control copied, its model shared while
unchanged, see :mod:`twig.physics.groups`). A restore puts each
object's attributes back **into the same object**: a handle a user holds (an
:class:`~twig.action.Action`, a character, a behaviour) keeps its identity and gets its state
of the snapshot's tick back. Objects made after the snapshot are no longer referenced by the
world. Closures' captured variables and bound methods' objects are captured too; objects of
other libraries are kept as they are (shared, not copied), as are read-only arrays and
classes marked ``SNAPSHOT_SHARED = True`` (static model data such as clips).
"""

from __future__ import annotations

import enum
import pickle
import sys
import types
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

import cloudpickle
import numpy as np

from twig.errors import TwigError
from twig.physics import snapshot as physics_snapshot
from twig.physics.columns import Columns
from twig.physics.snapshot import Snapshot

if TYPE_CHECKING:
    from twig.physics import PhysicsWorld

_ATOMS = (type(None), bool, int, float, complex, str, bytes, range, PurePath, type,
          types.ModuleType, types.BuiltinFunctionType, np.generic, np.dtype, enum.Enum)


@dataclass
class WorldSnapshot:
    """A whole world's state at one tick (see the module doc); give it to
    ``world.restore``."""

    physics: Snapshot
    roots: dict[str, Any]
    """The world's attributes beyond physics, as captured."""
    objects: list[tuple[Any, Any]] = field(default_factory=list)
    """(live object, its captured attributes) for every captured object."""

    @property
    def tick(self) -> int:
        return self.physics.tick


def _copy(v: Any, key: int, memo: dict[int, Any], value: Callable[[Any], Any],
          leaf: Callable[[Any], Any]) -> Any:
    """A copy of container ``v`` (array, list, dict, tuple, set, deque, named tuple) whose
    items are copied by ``value``; anything else is ``leaf(v)``. Lists and dicts enter
    ``memo`` before their items, so a container that holds itself is copied once."""
    kind = type(v)
    if kind is np.ndarray:
        out: Any = v.copy() if v.flags.writeable else v
    elif kind is list:
        out = memo[key] = []
        out.extend(value(x) for x in v)
        return out
    elif kind is dict:
        out = memo[key] = {}
        for k, x in v.items():
            out[value(k)] = value(x)
        return out
    elif kind is tuple:
        out = tuple(value(x) for x in v)
    elif kind in (set, frozenset):
        out = kind(value(x) for x in v)
    elif kind is deque:
        out = deque((value(x) for x in v), maxlen=v.maxlen)
    elif isinstance(v, tuple) and hasattr(v, "_fields"):
        out = kind(*(value(x) for x in v))
    else:
        out = leaf(v)
    memo[key] = out
    return out


def _itself(v: Any) -> Any:
    return v


class _Ref:
    """A captured object's place in a snapshot: restoring gives back the object itself."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj


class _Capture:
    """Copies values, registering each twig object, closure cell and Columns table once."""

    def __init__(self, world: PhysicsWorld) -> None:
        self.world = world
        self.memo: dict[int, Any] = {id(world): _Ref(world)}
        self.objects: list[tuple[Any, Any]] = []
        self.keep: list[Any] = []  # keeps ids in memo unique while capturing

    def value(self, v: Any) -> Any:
        if isinstance(v, _ATOMS):
            return v
        key = id(v)
        found = self.memo.get(key)
        if found is not None:
            return found
        self.keep.append(v)
        return _copy(v, key, self.memo, self.value, self._object)

    def _object(self, v: Any) -> Any:
        ref = _Ref(v)
        self.memo[id(v)] = ref
        if isinstance(v, Columns):  # a table of a layer above (the motor's)
            self.objects.append((v, (v.model_copy(), v.changing())))
        elif isinstance(v, types.FunctionType):
            for cell in v.__closure__ or ():
                self._cell(cell)
        elif isinstance(v, types.MethodType) and not _surface(v.__self__):
            self.value(v.__self__)
        elif isinstance(v, np.random.Generator):
            self.objects.append((v, v.bit_generator.state))
        elif _captured(v):
            self.objects.append((v, {k: self.value(x) for k, x in vars(v).items()}))
        return ref

    def _cell(self, cell: types.CellType) -> None:
        if id(cell) in self.memo:
            return
        self.memo[id(cell)] = _Ref(cell)
        self.keep.append(cell)
        try:
            contents = cell.cell_contents
        except ValueError:  # not yet bound
            return
        self.objects.append((cell, self.value(contents)))


SURFACES = ("twig.server", "twig.view", "twig.realtime", "twig.mcp")
"""Packages whose objects serve the world to the outside (connections, viewers, the real-time
loop): not world state. A snapshot shares them, a saved world leaves them out (their event
subscriptions receive nothing in the loaded world)."""


def _surface(v: Any) -> bool:
    return type(v).__module__.startswith(SURFACES)


def _captured(v: Any) -> bool:
    """Whether ``v``'s attributes are state to capture: an instance of a twig class (not of a
    surface, not marked shared) with a ``__dict__``."""
    kind = type(v)
    return (kind.__module__.startswith("twig") and hasattr(v, "__dict__")
            and not _surface(v) and not getattr(kind, "SNAPSHOT_SHARED", False))


class _Thaw:
    """Fresh copies of captured values (so one snapshot can be restored many times)."""

    def __init__(self) -> None:
        self.memo: dict[int, Any] = {}

    def value(self, v: Any) -> Any:
        if isinstance(v, _ATOMS):
            return v
        kind = type(v)
        if kind is _Ref:
            return v.obj
        key = id(v)
        found = self.memo.get(key)
        if found is not None:
            return found
        return _copy(v, key, self.memo, self.value, _itself)


def capture(world: PhysicsWorld) -> WorldSnapshot:
    """The whole state of ``world`` (see the module doc)."""
    physics = physics_snapshot.take_snapshot(world)
    cap = _Capture(world)
    skip = world.OWN_STATE | world.CACHES
    roots = {k: cap.value(v) for k, v in vars(world).items() if k not in skip}
    return WorldSnapshot(physics, roots, cap.objects)


def restore(world: PhysicsWorld, snap: WorldSnapshot) -> None:
    """Return ``world`` to ``snap``: the physics tables, then every captured object's
    attributes, in place."""
    physics_snapshot.put_back(world, snap.physics)
    thaw = _Thaw()
    for obj, state in snap.objects:
        if isinstance(obj, Columns):
            obj.put_back(*state)
        elif isinstance(obj, types.CellType):
            obj.cell_contents = thaw.value(state)
        elif isinstance(obj, np.random.Generator):
            obj.bit_generator.state = state
        else:
            attrs = vars(obj)
            attrs.clear()
            attrs.update({k: thaw.value(x) for k, x in state.items()})
    skip = world.OWN_STATE | world.CACHES
    attrs = vars(world)
    for k in [k for k in attrs if k not in skip and k not in snap.roots]:
        del attrs[k]
    attrs.update({k: thaw.value(x) for k, x in snap.roots.items()})


SAVE_FORMAT = "twig-world-2"
"""First item of a saved world's pickle: the format's name and version (2: the world's model,
state and control, :mod:`twig.physics.groups`)."""


class _Pickler(cloudpickle.CloudPickler):
    """Pickles a world; the standard streams it writes to are saved by name, the surfaces'
    objects (and their methods) as detached."""

    def persistent_id(self, obj: Any) -> str | None:
        for name in ("stdout", "stderr"):
            if obj is getattr(sys, name):
                return name
        if _surface(obj) or (isinstance(obj, types.MethodType) and _surface(obj.__self__)):
            return "detached"
        return None


def _detached(*args: Any, **kwargs: Any) -> None:
    """What a saved world's links to a server or viewer become: a callback doing nothing."""


class _Unpickler(pickle.Unpickler):
    def persistent_load(self, pid: str) -> Any:
        return _detached if pid == "detached" else getattr(sys, pid)


def save(world: PhysicsWorld, path: Path) -> None:
    """Write ``world`` with a snapshot of its state to ``path`` (see ``World.save``). Lambdas
    and closures (output callbacks, motor conditions) are pickled by value."""
    snap = capture(world)
    with path.open("wb") as f:
        _Pickler(f, protocol=pickle.HIGHEST_PROTOCOL).dump((SAVE_FORMAT, world, snap))


def load(path: Path) -> PhysicsWorld:
    """The world :func:`save` wrote to ``path``, at the saved tick."""
    try:
        with path.open("rb") as f:
            head = f.read(2)
            f.seek(0)
            if head[:1] != b"\x80":
                raise TwigError(f"{path}: not a saved twig world")
            found = _Unpickler(f).load()
    except OSError as e:
        raise TwigError(f"{path}: cannot read: {e}") from None
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError) as e:
        raise TwigError(f"{path}: not a saved twig world ({e})") from None
    if not (isinstance(found, tuple) and len(found) == 3 and found[0] == SAVE_FORMAT):
        raise TwigError(f"{path}: not a saved twig world of format {SAVE_FORMAT}")
    _, world, snap = found
    restore(world, snap)  # rebuilds the caches and views the pickle did not keep
    return world
