"""Load scene files: ``[scene]``, ``[world]`` and ``[[object]]`` tables (DESIGN.md, "Scene files").

Object fields are the keyword parameters of the body builders (``World.add_<type>``), so a scene
file accepts exactly what the Python API accepts. Every error names the file, the table and the
field, and what was expected.
"""

from __future__ import annotations

import inspect
import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from numbers import Integral
from pathlib import Path
from typing import Any

from twig.bodies.cloth import add_cloth
from twig.bodies.furniture import add_chair, add_table
from twig.bodies.merry_go_round import add_merry_go_round
from twig.bodies.mesh import add_box_model
from twig.bodies.props import add_ball, add_block, add_doll, add_weight
from twig.bodies.simple import add_rope, add_stick, add_tetrahedron
from twig.bodies.stationery import add_clipboard, add_pen
from twig.errors import SceneError, TwigError, did_you_mean
from twig.motor import add_character
from twig.script.syntax import check_text
from twig.world import World

_OBJECT_TYPES: dict[str, Callable[..., Any]] = {
    "stick": add_stick,
    "rope": add_rope,
    "tetrahedron": add_tetrahedron,
    "cloth": add_cloth,
    "humanoid": add_character,
    "ball": add_ball,
    "block": add_block,
    "weight": add_weight,
    "static_box": World.add_static_box,
    "doll": add_doll,
    "merry_go_round": add_merry_go_round,
    "chair": add_chair,
    "table": add_table,
    "clipboard": add_clipboard,
    "pen": add_pen,
    "box_model": add_box_model,
}
"""Scene object type -> body builder; the builder's keyword parameters are the fields."""
_WORLD_FIELDS = {"seed": "int", "iterations": "int", "gravity": "ArrayLike", "ground": "bool",
                 "ground_friction": "float", "bounds": "table"}
_BOUNDS_FIELDS = {"lower": "ArrayLike", "upper": "ArrayLike", "friction": "float"}
_SCENE_FIELDS = {"description": "str", "seconds": "float", "script": "str"}
MAX_ITERATIONS = 100
"""Most relaxation iterations per tick a scene may ask for."""
MAX_SEED = 2**63 - 1
"""Largest world seed (seeds are integers from 0)."""
RESERVED_NAMES = ("world",)
"""Names no object may have (``world:`` addresses the world itself)."""

_EXPECTED = {
    "ArrayLike": "a vector [x, y, z] of numbers",
    "float": "a number",
    "float | None": "a number",
    "int": "an integer",
    "bool": "true or false",
    "str": "a string",
    "tuple[str, ...]": "a list of strings",
    "table": "a table",
    "str | Path": "a file path (a string; relative paths start at the scene file's folder)",
}


@dataclass(frozen=True)
class SceneInfo:
    """What a scene file says about itself."""

    name: str
    path: Path
    description: str
    seconds: float
    script: Path | None = None
    """A ``.twig`` script the scene runs as it steps (relative paths from the scene file)."""


def object_builders() -> dict[str, Callable[..., Any]]:
    """Scene object type (``ball``) -> its builder, whose keyword parameters are the fields
    of an ``[[object]]`` table and of ``world: spawn``."""
    return dict(_OBJECT_TYPES)


def _builder_fields(kind: str) -> dict[str, tuple[str, bool]]:
    """Field name -> (annotation, required) from the builder's signature."""
    fields = {}
    for p in list(inspect.signature(_OBJECT_TYPES[kind]).parameters.values())[1:]:
        fields[p.name] = (str(p.annotation), p.default is inspect.Parameter.empty)
    return fields


def _check(value: Any, kind: str, where: str) -> Any:
    ok = {
        "ArrayLike": isinstance(value, list) and len(value) == 3
        and all(_is_number(v) for v in value),
        "float": _is_number(value),
        "float | None": _is_number(value),
        "int": isinstance(value, int) and not isinstance(value, bool),
        "bool": isinstance(value, bool),
        "str": isinstance(value, str),
        "str | Path": isinstance(value, str) and bool(value),
        "tuple[str, ...]": isinstance(value, list) and all(isinstance(v, str) for v in value),
        "table": isinstance(value, dict),
    }.get(kind, True)
    if not ok:
        raise SceneError(f"{where}: expected {_EXPECTED.get(kind, kind)}, got {value!r}")
    return tuple(value) if kind == "tuple[str, ...]" else value


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _fields(table: Mapping[str, Any], spec: Mapping[str, str], where: str) -> dict[str, Any]:
    unknown = sorted(set(table) - set(spec))
    if unknown:
        raise SceneError(f"{where}: unknown field {unknown[0]!r}"
                         f"{did_you_mean(unknown[0], spec)} "
                         f"(known fields: {', '.join(sorted(spec))})")
    return {k: _check(v, spec[k], f"{where}: field {k!r}") for k, v in table.items()}


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
    if "_behavior" in world.__dict__:
        from twig.behavior.catalogue import missing_objects

        for agent in world.behavior.agents:
            missing = missing_objects(agent)
            if missing:
                raise SceneError(f"{path}: humanoid {agent.name!r}: field 'behaviors' names "
                                 f"{missing[0]!r}, which is not an object of the scene")
    world.scene = info
    if info.script is not None:
        from twig.script.interpreter import attach_scene_script

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


def _name(name: str, where: str) -> None:
    """An object's name: printable, not empty, not reserved."""
    if not name or name in RESERVED_NAMES:
        raise SceneError(f"{where}: field 'name': {name!r} cannot name an object (reserved "
                         f"names: {', '.join(RESERVED_NAMES)}; nor the empty name)")
    try:
        check_text(name, f"{where}: field 'name'")
    except TwigError as e:
        raise SceneError(str(e)) from None


def add_object(world: World, table: Any, where: str, base: Path | None = None) -> None:
    """Add one object from an ``[[object]]`` table (``type``, ``name`` and the builder's
    fields), checked as in a scene file; errors start with ``where``; relative file paths
    (a box model's mesh) are resolved against ``base`` (the scene file's folder). Scripts'
    ``world: spawn`` uses this too."""
    _check(table, "table", where)
    kind = table.get("type")
    if kind is None:
        raise SceneError(f"{where}: missing field 'type' (one of {', '.join(_OBJECT_TYPES)})")
    if kind not in _OBJECT_TYPES:
        name = table.get("name")
        if isinstance(name, str):
            where = f"{where} ({name!r})"
        raise SceneError(f"{where}: field 'type': unknown type {kind!r}"
                         f"{did_you_mean(kind, _OBJECT_TYPES)} "
                         f"(known types: {', '.join(_OBJECT_TYPES)})")
    fields = _builder_fields(kind)
    spec = {name: ann for name, (ann, _) in fields.items()}
    extra = ("type", "behaviors") if kind == "humanoid" else ("type",)
    values = _fields({k2: v for k2, v in table.items() if k2 not in extra}, spec,
                     f"{where} ({kind})")
    missing = [n for n, (_, required) in fields.items() if required and n not in values]
    if missing:
        raise SceneError(f"{where} ({kind}): missing field {missing[0]!r}")
    _name(values["name"], f"{where} ({kind})")
    where = f"{where} ({kind} {values['name']!r})"
    for field, (annotation, _) in fields.items():
        if annotation == "str | Path" and field in values and base is not None:
            values[field] = str(base / values[field])
    try:
        body = _OBJECT_TYPES[kind](world, **values)
    except TwigError as e:
        raise SceneError(f"{where}: {e}") from None
    if "behaviors" in extra and "behaviors" in table:
        _add_behaviors(world, body, table["behaviors"], where)


def _add_behaviors(world: World, body: Any, spec: Any, where: str) -> None:
    """A humanoid's ``behaviors`` field: names or a table of settings (docs/behaviours.md)."""
    from twig.behavior import add_behaviors
    from twig.motor import Character

    if not isinstance(body, Character):
        raise SceneError(f"{where}: field 'behaviors': only a controlled humanoid has "
                         "behaviours (not one with control = false)")
    try:
        add_behaviors(body, spec)
    except TwigError as e:
        raise SceneError(f"{where}: field 'behaviors': {e}") from None
