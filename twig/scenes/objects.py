"""Scene objects: the ``[[object]]`` tables of scene files and scripts' ``world: spawn``.

Object fields are the keyword parameters of the body builders (``World.add_<type>``), so a
table accepts exactly what the Python API accepts. Every error names where it is, the field,
and what was expected.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
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


RESERVED_NAMES = ("world",)
"""Names no object may have (``world:`` addresses the world itself)."""


def _name(name: str, where: str) -> None:
    """An object's name: printable, not empty, not reserved."""
    from twig.script.syntax import check_text

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
