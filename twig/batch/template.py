"""Scene templates: a scene file with some fields set to a job's values before it is loaded.

An override key is a dotted path into the scene's tables: ``world.<field>`` for the
``[world]`` table, ``<object name>.<field>`` for the ``[[object]]`` of that name, and further
dots for tables inside them (``kid.behaviors.play-ball.area``). The loader then checks the
overridden scene like any other, so a bad value fails the job with the loader's message
(file, table, field, what was expected).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from twig.errors import SceneError


def apply_overrides(data: dict[str, Any], overrides: Mapping[str, Any], where: str) -> None:
    """Set each ``overrides`` key (a dotted path, see the module docstring) in the scene's
    tables ``data``, in place; missing tables on the way are made. A SceneError starting with
    ``where`` names a key whose object the scene does not have."""
    for key, value in overrides.items():
        first, *rest = key.split(".")
        if first == "world":
            table = data.setdefault("world", {})
        else:
            table = _object(data, first, f"{where}: {key!r}")
        for part in rest[:-1]:
            inner = table.setdefault(part, {})
            if not isinstance(inner, dict):
                raise SceneError(f"{where}: {key!r}: {part!r} is {inner!r} in the scene, "
                                 "not a table")
            table = inner
        table[rest[-1]] = copy.deepcopy(value)


def _object(data: Mapping[str, Any], name: str, where: str) -> dict[str, Any]:
    objects = data.get("object", [])
    if isinstance(objects, list):
        for table in objects:
            if isinstance(table, dict) and table.get("name") == name:
                return table
    names = [t.get("name") for t in objects if isinstance(t, dict)] \
        if isinstance(objects, list) else []
    raise SceneError(f"{where}: the scene has no object named {name!r} (objects: "
                     f"{', '.join(str(n) for n in names) or 'none'}; or 'world.<field>')")


def scene_editor(overrides: Mapping[str, Any], where: str
                 ) -> Callable[[dict[str, Any]], None] | None:
    """The ``edit`` hook for :func:`twig.scenes.load_scene` that applies ``overrides`` (None
    when there are none)."""
    if not overrides:
        return None
    return lambda data: apply_overrides(data, overrides, where)
