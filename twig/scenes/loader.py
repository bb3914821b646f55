"""Load scene files: ``[scene]``, ``[world]`` and ``[[object]]`` tables (DESIGN.md, "Scene files").

Object fields are the keyword parameters of the body builders (``World.add_<type>``), so a scene
file accepts exactly what the Python API accepts. Every error names the file, the table and the
field, and what was expected.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from numbers import Integral
from pathlib import Path
from typing import Any

from twig.errors import ParseError, SceneError, TwigError, did_you_mean
from twig.scenes.objects import _check, _fields, add_object
from twig.script.interpreter import Interpreter
from twig.script.syntax import read_script
from twig.world import World

_WORLD_FIELDS = {"seed": "int", "iterations": "int", "gravity": "ArrayLike", "ground": "bool",
                 "ground_friction": "float", "bounds": "table"}
_BOUNDS_FIELDS = {"lower": "ArrayLike", "upper": "ArrayLike", "friction": "float"}
_SCENE_FIELDS = {"description": "str", "seconds": "float", "script": "str"}
MAX_ITERATIONS = 100
"""Most relaxation iterations per tick a scene may ask for."""
MAX_SEED = 2**63 - 1
"""Largest world seed (seeds are integers from 0)."""

@dataclass(frozen=True)
class SceneInfo:
    """What a scene file says about itself."""

    name: str
    path: Path
    description: str
    seconds: float
    script: Path | None = None
    """A ``.twig`` script the scene runs as it steps (relative paths from the scene file)."""


def scene_path(name: str | Path) -> Path:
    """Path of a built-in scene name or of a ``.toml`` file."""
    p = Path(name)
    if p.suffix == ".toml":
        if not p.is_file():
            raise SceneError(f"scene file {str(p)!r} does not exist")
        return p
    builtin = resources.files("twig.scenes") / f"{name}.toml"
    if not builtin.is_file():
        names = [s.name for s in list_scenes()]
        raise SceneError(f"unknown scene {str(name)!r}{did_you_mean(name, names)}; built-in "
                         f"scenes: "
                         f"{', '.join(names)} (or give a .toml path)")
    return Path(str(builtin))


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise SceneError(f"{path}: malformed TOML: {e}") from None
    except RecursionError:
        raise SceneError(f"{path}: malformed TOML: arrays or tables nested too deeply") from None
    except (OSError, UnicodeDecodeError) as e:
        raise SceneError(f"{path}: cannot read scene file: {e}") from None


def _info(path: Path, data: Mapping[str, Any]) -> SceneInfo:
    scene = data.get("scene", {})
    _check(scene, "table", f"{path}: [scene]")
    fields = _fields(scene, _SCENE_FIELDS, f"{path}: [scene]")
    seconds = fields.get("seconds", 5.0)
    if seconds <= 0:
        raise SceneError(f"{path}: [scene]: field 'seconds': expected a positive number")
    script = path.parent / fields["script"] if "script" in fields else None
    return SceneInfo(path.stem, path, fields.get("description", ""), float(seconds), script)


def list_scenes() -> list[SceneInfo]:
    """The built-in scenes, sorted by name."""
    folder = resources.files("twig.scenes")
    paths = sorted(Path(str(folder / f.name)) for f in folder.iterdir()
                   if f.name.endswith(".toml"))
    return [_info(p, _read(p)) for p in paths]


def load_scene(name: str | Path, seed: int | None = None,
               edit: Callable[[dict[str, Any]], None] | None = None) -> World:
    """Build a :class:`~twig.World` from a built-in scene name or a ``.toml`` path.

    ``seed`` overrides the scene's ``[world] seed``. The world's ``scene`` attribute holds the
    :class:`SceneInfo`. ``edit``, if given, changes the scene's tables in place after they are
    read and before they are checked (scene templates: ``twig batch`` sets fields this way).
    """
    path = scene_path(name)
    data = _read(path)
    if edit is not None:
        edit(data)
    unknown = sorted(set(data) - {"scene", "world", "object"})
    if unknown:
        raise SceneError(f"{path}: unknown table [{unknown[0]}] (expected [scene], [world], "
                         "[[object]])")
    info = _info(path, data)
    world_cfg = _fields(_check(data.get("world", {}), "table", f"{path}: [world]"),
                        _WORLD_FIELDS, f"{path}: [world]")
    bounds = world_cfg.pop("bounds", None)
    if seed is not None:
        world_cfg["seed"] = seed
    _world_limits(world_cfg, f"{path}: [world]")
    try:
        world = World(**world_cfg)
        if bounds is not None:
            where = f"{path}: [world.bounds]"
            b = _fields(bounds, _BOUNDS_FIELDS, where)
            if "lower" not in b or "upper" not in b:
                raise SceneError(f"{where}: needs fields 'lower' and 'upper'")
            world.add_box_bounds(**b)
    except TwigError as e:
        if isinstance(e, SceneError):
            raise
        raise SceneError(f"{path}: [world]: {e}") from None
    objects = data.get("object", [])
    if not isinstance(objects, list):
        raise SceneError(f"{path}: 'object' must be an array of tables ([[object]])")
    for k, table in enumerate(objects, start=1):
        add_object(world, table, f"{path}: [[object]] #{k}", base=path.parent)
    if "behavior" in world.systems:
        from twig.behavior.catalogue import missing_objects

        for agent in world.behavior.agents:
            missing = missing_objects(agent)
            if missing:
                raise SceneError(f"{path}: humanoid {agent.name!r}: field 'behaviors' names "
                                 f"{missing[0]!r}, which is not an object of the scene")
    world.scene = info
    if info.script is not None:
        attach_scene_script(world, info)
    return world


def _world_limits(cfg: Mapping[str, Any], where: str) -> None:
    """The seed and iterations in range, before the world is built."""
    seed = cfg.get("seed", 0)
    if not (isinstance(seed, Integral) and not isinstance(seed, bool) and 0 <= seed <= MAX_SEED):
        raise SceneError(f"{where}: field 'seed': expected an integer from 0 to 2**63 - 1, "
                         f"got {seed!r}")
    iterations = cfg.get("iterations", 1)
    if iterations > MAX_ITERATIONS:  # too few: the world says so
        raise SceneError(f"{where}: field 'iterations': expected an integer from 1 to "
                         f"{MAX_ITERATIONS}, got {iterations!r}")


def attach_scene_script(world: World, info: SceneInfo) -> Interpreter:
    """Start the script a scene file names (``[scene] script``); it runs as the world steps,
    its first line in the next tick stepped (tick 0 of a scene just loaded).

    The interpreter is ``world.script``. A script that does not parse is a SceneError.
    """
    assert info.script is not None
    try:
        calls = read_script(info.script)
    except ParseError as e:
        raise SceneError(f"{info.path}: [scene]: field 'script': {e}") from None
    interpreter = Interpreter(world, calls)
    world.script = interpreter
    return interpreter
