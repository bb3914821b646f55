"""Match a parsed :class:`~twig.script.syntax.Call` to a command's typed parameters.

Every value is checked against its parameter's type before the command runs, so a wrong
argument changes nothing and the error says which parameter expected what.
"""

from __future__ import annotations

from typing import Any

from twig.commands import Command, Param, command_kind, resolve_object
from twig.errors import ScriptError, TwigError
from twig.script.syntax import Call, Name, Value, format_value

EXPECTED = {
    "float": "a number",
    "int": "an integer",
    "bool": "true or false (on, off)",
    "str": "a string or a name",
    "vector": "a vector (x, y, z) with components within ±1e6",
    "node": "a node name",
    "any": "a value",
    "place": "a point (x, y, z) or the name of an object or node",
    "item": "the name of an object (or of one node, object/node)",
    "heading": "a heading in radians, a point (x, y, z) or the name of an object or node",
    "mapping": "an object of names to names (in a JSON request)",
}
MAX_COORDINATE = 1e6
"""Largest vector component scripts may give (metres, N, N s): beyond it lies overflow."""
_BOOL_WORDS = {"true": True, "on": True, "yes": True, "false": False, "off": False, "no": False}


def bind(command: Command, call: Call, world: Any) -> tuple[list[Any], dict[str, Any]]:
    """Positional and keyword arguments for ``command.function`` (after its target).

    Raises :class:`~twig.errors.ScriptError` for a missing, unknown, surplus or mistyped
    argument (objects are resolved by name in ``world``).
    """
    params = {p.name: p for p in command.params if not p.variadic}
    star = next((p for p in command.params if p.variadic == "*"), None)
    stars = next((p for p in command.params if p.variadic == "**"), None)
    positional = [p for p in command.params if not p.variadic]
    if len(call.args) > len(positional) and star is None:
        raise ScriptError(f"takes at most {len(positional)} positional value(s) "
                          f"({command.usage}), got {len(call.args)}")
    args: list[Any] = []
    given: set[str] = set()
    for k, value in enumerate(call.args):
        p = positional[k] if k < len(positional) else star
        assert p is not None
        args.append(coerce(p, value, world))
        given.add(p.name)
    kwargs: dict[str, Any] = {}
    for key, value in call.kwargs:
        if star is not None and key == star.name and isinstance(value, tuple):
            args.extend(coerce(star, v, world) for v in value)  # a JSON list for *args
            given.add(key)
            continue
        p = params.get(key)
        if p is None and stars is None:
            known = ", ".join(params) or "none"
            raise ScriptError(f"unknown parameter {key!r} (parameters: {known})")
        if key in given:
            raise ScriptError(f"parameter {key!r} is given twice")
        kwargs[key] = coerce(p or stars, value, world)
        given.add(key)
    missing = [p.name for p in positional if p.required and p.name not in given]
    if missing:
        raise ScriptError(f"missing parameter {missing[0]!r} ({command.usage})")
    return args, kwargs


def coerce(p: Param, value: Value, world: Any) -> Any:
    """The Python value for parameter ``p`` from a script literal, or a ScriptError."""
    v = _coerce(p, value, world)
    if v is _BAD:
        what = (f"one of {', '.join(p.choices)}" if p.type == "choice"
                else f"one of {', '.join(p.choices)} or a {p.suffix} file's path"
                if p.type == "named"
                else f"the name of a {command_kind(p.cls)}" if p.type == "object"
                else EXPECTED[p.type])
        raise ScriptError(f"parameter {p.name!r}: expected {what}, got {format_value(value)}")
    return v


_BAD = object()


def _coerce(p: Param, value: Value, world: Any) -> Any:
    text = value.text if isinstance(value, Name) else value if isinstance(value, str) else None
    kind = p.type
    if kind == "float" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind == "int" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind == "bool":
        if isinstance(value, bool):
            return value
        return _BOOL_WORDS.get(value.text, _BAD) if isinstance(value, Name) else _BAD
    if kind in ("vector", "place", "heading") and _is_vector(value):
        return value
    if kind == "heading" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind in ("place", "item", "heading") and text is not None:
        return text
    if kind == "mapping" and isinstance(value, dict):
        return dict(value)
    if kind == "named" and text is not None:
        return text if text in p.choices or text.lower().endswith(p.suffix) else _BAD
    if kind in ("str", "node") and text is not None:
        return text
    if kind == "choice":
        return text if text in p.choices else _BAD
    if kind == "object" and text is not None:
        return _resolve(p, text, world)
    if kind == "any":
        if isinstance(value, tuple):
            return [str(c) if isinstance(c, Name) else c for c in value]
        return text if text is not None else value
    return _BAD


def _is_vector(value: Value) -> bool:
    return (isinstance(value, tuple) and len(value) == 3
            and all(isinstance(c, float) and abs(c) <= MAX_COORDINATE for c in value))


def _resolve(p: Param, name: str, world: Any) -> Any:
    try:
        found = resolve_object(world, name, p.cls)
    except TwigError as e:
        raise ScriptError(f"parameter {p.name!r}: {e}") from None
    if not found:
        kind = world.body(name).type
        raise ScriptError(f"parameter {p.name!r}: expected the name of a "
                          f"{command_kind(p.cls)}, but {name!r} is a {kind}")
    return found[0]
