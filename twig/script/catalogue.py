"""The command catalogue (``twig commands``) and its JSON Schema form (``--json``).

The JSON form describes each command as a tool a planner or a language-model agent can call:
``name`` (``body_move_node``), ``description`` (the doc string) and ``parameters`` (a JSON
Schema object; ``target`` names the object to command). ``x-twig`` says how to send it: as a
line ``kid: move-node ...`` or as a JSON request ``{"target": "kid", "command": "move-node",
"args": {...}}`` (docs/protocol.md).
"""

from __future__ import annotations

from typing import Any

from twig.bodies.humanoid import NODE_NAMES
from twig.commands import Command, Param, command_classes, command_kind, commands_of
from twig.script import session  # noqa: F401  (registers the world and body commands)
from twig.script.world_commands import WorldTarget

_SCHEMA: dict[str, dict[str, Any]] = {
    "float": {"type": "number"},
    "int": {"type": "integer"},
    "bool": {"type": "boolean"},
    "str": {"type": "string"},
    "vector": {"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3,
               "description": "(x, y, z)"},
    "node": {"type": "string", "description": "a node of the target (a humanoid's: "
                                              + ", ".join(NODE_NAMES) + ")"},
    "any": {},
}


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
    """JSON Schema of one parameter's value."""
    if p.type == "choice":
        schema: dict[str, Any] = {"type": "string", "enum": list(p.choices)}
    elif p.type == "object":
        kind = command_kind(p.cls) if p.cls is not None else "object"
        schema = {"type": "string", "description": f"the name of a {kind} in the world"}
    else:
        schema = dict(_SCHEMA[p.type])
    if p.variadic == "*":
        return {"type": "array", "items": schema}
    if not p.required and p.default is not None and p.default != "":
        schema["default"] = list(p.default) if isinstance(p.default, tuple) else p.default
    return schema


def tool_schema(kind: str, c: Command) -> dict[str, Any]:
    """One command as a tool: name, description, parameters (JSON Schema)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    if kind != "world":
        properties["target"] = {"type": "string",
                                "description": f"the name of the {kind} to command"}
        required.append("target")
    for p in c.params:
        if p.variadic != "**":
            properties[p.name] = param_schema(p)
            if p.required:
                required.append(p.name)
    return {
        "name": f"{kind}_{c.name.replace('-', '_')}",
        "description": c.doc,
        "parameters": {"type": "object", "properties": properties, "required": required,
                       "additionalProperties": any(p.variadic == "**" for p in c.params)},
        "x-twig": {"target": kind, "command": c.name, "kind": c.kind,
                   "usage": f"{'world' if kind == 'world' else '<' + kind + '>'}: {c.usage}"},
    }


def tool_schemas() -> list[dict[str, Any]]:
    """Every command as a tool (see the module doc)."""
    return [tool_schema(kind, c) for kind, commands in catalogue() for c in commands]
