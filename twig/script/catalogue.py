"""The command catalogue (``twig commands``) and its JSON Schema form (``--json``).

The JSON form describes each command as a tool a planner or a language-model agent can call:
``name`` (``body_move_node``), ``description`` (the doc string) and ``parameters`` (a JSON
Schema object; ``target`` names the object to command). ``x-twig`` says how to send it: as a
line ``kid: move-node ...`` or as a JSON request ``{"target": "kid", "command": "move-node",
"args": {...}}`` (docs/protocol.md).
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from twig.bodies.humanoid import NODE_NAMES
from twig.commands import Command, Param, command_classes, command_kind, commands_of
from twig.script import session  # noqa: F401  (registers the world and body commands)
from twig.script.binding import MAX_COORDINATE
from twig.script.world_commands import WorldTarget

VECTOR = {"type": "array", "minItems": 3, "maxItems": 3,
          "items": {"type": "number", "minimum": -MAX_COORDINATE, "maximum": MAX_COORDINATE}}
"""JSON Schema of a vector ``[x, y, z]`` (components as scripts may give them)."""
NAME = {"type": "string", "minLength": 1}
_SCHEMA: dict[str, dict[str, Any]] = {
    "float": {"type": "number"},
    "int": {"type": "integer"},
    "bool": {"type": "boolean"},
    "str": {"type": "string"},
    "vector": VECTOR,
    "node": {"type": "string"},
    "place": {"anyOf": [VECTOR, NAME]},
    "item": NAME,
    "heading": {"anyOf": [{"type": "number"}, VECTOR, NAME]},
    "mapping": {"type": "object", "additionalProperties": {"type": "string"}},
    "any": {},
}
_MEANING = {
    "vector": "[x, y, z]",
    "node": "a node of the target (a humanoid's: " + ", ".join(NODE_NAMES) + ")",
    "place": "a point [x, y, z] in metres, or the name of an object (followed as it moves) "
             "or of a node (kid/l_hand)",
    "item": "the name of an object, or of one of its nodes (clipboard/clip)",
    "heading": "a heading in radians about +y (0 faces +z), a point [x, y, z], or the name "
               "of an object or node to face",
}
"""What a value of each type is, said after the parameter's own description."""
_FIELD_TYPES = {"ArrayLike": VECTOR, "float": {"type": "number"},
                "float | None": {"type": "number"}, "int": {"type": "integer"},
                "bool": {"type": "boolean"}, "str": {"type": "string"},
                "str | Path": {"type": "string", "minLength": 1},
                "tuple[str, ...]": {"type": "array", "items": {"type": "string"}}}
"""Builder annotations -> JSON Schema of the ``world: spawn`` field (others are left out)."""
_FIELDS = {
    "position": "where it goes, [x, y, z] m (a humanoid's or chair's feet, a block's centre)",
    "start": "the rope's first node, [x, y, z] m", "center": "centre, [x, y, z] m",
    "half_extents": "half sizes along its axes, [x, y, z] m", "velocity": "initial, m/s",
    "mass": "kg", "radius": "m", "length": "m", "height": "m", "size": "m",
    "direction": "unit vector [x, y, z]", "facing": "heading, rad (0 faces +z)",
    "yaw": "rad about +y", "friction": "Jakobsen friction coefficient",
    "path": "a mesh file (.obj, .glb, .gltf, .stl)", "spin": "rad/s", "tilt": "rad",
    "segments": "links along it", "resolution": "nodes per side", "damping": "per tick",
    "pinned": "held in place", "lying": "starts lying on its back",
    "preset": "'adult' (1.75 m) or 'child' (1.1 m)",
    "behaviors": "behaviours that make it autonomous (docs/behaviours.md)",
}
"""What the common ``world: spawn`` fields mean (docs/scenes.md has them all)."""


def catalogue() -> list[tuple[str, list[Command]]]:
    """Every command, grouped by the kind of target (``world``, ``body``, ...)."""
    out = []
    for cls in [WorldTarget, *command_classes()]:
        own = [c for c in commands_of(cls).values() if c.owner is cls]
        if own:
            out.append((command_kind(cls), sorted(own, key=lambda c: c.name)))
    return out


def catalogue_text() -> str:
    """The catalogue for people: one line of usage and summary per command."""
    lines = []
    for kind, commands in catalogue():
        target = "world" if kind == "world" else f"<{kind}>"
        lines.append(f"{kind} commands ({target}: ...):")
        width = max(len(c.usage) for c in commands)
        for c in commands:
            mark = {"durative": "~", "query": "?", "instant": " "}[c.kind]
            lines.append(f"  {mark} {c.usage.ljust(width)}  {c.summary}")
        lines.append("")
    lines.append("~ takes time (returns an action; append & to run on)   ? a query (a value)")
    return "\n".join(lines)


def param_schema(p: Param) -> dict[str, Any]:
    """JSON Schema of one parameter's value, with its description."""
    if p.type == "choice":
        schema: dict[str, Any] = {"type": "string", "enum": list(p.choices)}
    elif p.type == "named":
        schema = {"anyOf": [{"type": "string", "enum": list(p.choices)},
                            {"type": "string", "pattern": re.escape(p.suffix) + "$"}]}
    elif p.type == "object":
        schema = dict(NAME)
    else:
        schema = dict(_SCHEMA[p.type])
    meaning = (f"the name of a {command_kind(p.cls)} in the world" if p.type == "object"
               else f"one of the built-in names or a {p.suffix} file's path"
               if p.type == "named" else _MEANING.get(p.type, ""))
    doc = p.doc.replace("``", "`")
    if p.type in ("vector", "node") and doc:
        meaning = meaning if p.type == "node" else ""
    text = f"{doc.rstrip('.')}: {meaning}" if doc and meaning else doc or meaning
    if p.variadic == "*":
        return {"type": "array", "items": schema, "description": text}
    if text:
        schema["description"] = text
    if not p.required and p.default is not None and p.default != "":
        schema["default"] = list(p.default) if isinstance(p.default, tuple) else p.default
    return schema


def tool_schema(kind: str, c: Command) -> dict[str, Any]:
    """One command as a tool: name, description, parameters (JSON Schema)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    if kind != "world":
        properties["target"] = {"type": "string", "minLength": 1,
                                "description": f"the name of the {kind} to command"}
        required.append("target")
    for p in c.params:
        if p.variadic != "**":
            properties[p.name] = param_schema(p)
            if p.required:
                required.append(p.name)
    parameters = {"type": "object", "properties": properties, "required": required,
                  "additionalProperties": False}
    if kind == "world" and c.name == "spawn":
        parameters = _spawn_schema(parameters)
    return {
        "name": f"{kind}_{c.name.replace('-', '_')}",
        "description": c.doc,
        "parameters": parameters,
        "x-twig": {"target": kind, "command": c.name, "kind": c.kind,
                   "usage": f"{'world' if kind == 'world' else '<' + kind + '>'}: {c.usage}"},
    }


def _spawn_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    """``world: spawn``'s fields depend on the object type: ``type`` is an enum of the types
    and a chain of ``if type is T then T's fields`` says which fields each takes and needs (a
    chain, not ``allOf``, because some tool clients refuse combinators at the top)."""
    from twig.scenes.objects import object_builders

    builders = object_builders()
    parameters["properties"]["type"]["enum"] = list(builders)
    parameters.pop("additionalProperties")
    chain: dict[str, Any] = {}
    for kind, builder in reversed(builders.items()):
        fields: dict[str, Any] = {}
        required = ["type", "name"]
        for f in list(inspect.signature(builder).parameters.values())[2:]:
            schema = _FIELD_TYPES.get(str(f.annotation))
            if schema is None or f.name == "type":
                continue  # a field JSON cannot give (a mapping, a matrix) or that clashes
            schema = dict(schema)
            schema["description"] = f"the {kind}'s {f.name}" + (
                f", {_FIELDS[f.name]}" if f.name in _FIELDS else "")
            if f.default is inspect.Parameter.empty:
                required.append(f.name)
            elif f.default is not None:
                schema["default"] = list(f.default) if isinstance(f.default, tuple) \
                    else f.default
            fields[f.name] = schema
        if kind == "humanoid":
            fields["behaviors"] = {"type": "array", "items": {"type": "string"},
                                   "description": _FIELDS["behaviors"]}
        then = {"properties": fields, "required": required,
                "propertyNames": {"enum": ["type", "name", *fields]}}
        test = {"properties": {"type": {"const": kind}}}
        chain = {"if": test, "then": then, **({"else": chain} if chain else {})}
    return {**parameters, **chain}


def tool_schemas() -> list[dict[str, Any]]:
    """Every command as a tool (see the module doc)."""
    return [_limited(tool_schema(kind, c)) for kind, commands in catalogue() for c in commands]


PRINTABLE = "^[^\\x00-\\x1f\\x7f-\\x9f]*$"
"""Strings hold no control characters (twig.script.syntax.check_text; a lone surrogate cannot
be sent as UTF-8 JSON either)."""


def _limited(schema: Any) -> Any:
    """``schema`` with the limits every request meets (docs/protocol.md): strings printable,
    numbers at most :data:`~twig.script.syntax.MAX_MAGNITUDE` in size."""
    from twig.script.syntax import MAX_MAGNITUDE

    if isinstance(schema, list):
        return [_limited(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _limited(v) for k, v in schema.items()}
    if out.get("type") == "string" and "enum" not in out and "pattern" not in out:
        out["pattern"] = PRINTABLE
    if out.get("type") == "object" and "additionalProperties" in out:
        out.setdefault("propertyNames", {"pattern": PRINTABLE})
    if out.get("type") in ("number", "integer"):
        out.setdefault("minimum", -MAX_MAGNITUDE)
        out.setdefault("maximum", MAX_MAGNITUDE)
    return out
