"""The command registry: the only methods that scripts and remote clients can call.

Horswill's Twig called any C# method by reflection (2009, section XI.C); twig instead calls only
what is registered here with :func:`command`, each with typed parameters read from its
annotations, defaults, its doc string, and whether it is *durative* (returns an
:class:`~twig.action.Action` the caller may wait for), a *query* (returns a JSON value) or
*instant* (returns None). Commands belong to a target class and are found through the class's
MRO, so subclasses inherit them. Nothing else is reachable: no attribute access by name, no
private or dunder names, no Python.

This module imports nothing heavy, so that every layer (physics-level commands in
:mod:`twig.script`, motor control, behaviours) can register its commands::

    from twig.commands import command, Vector

    class Character(Body):
        @command
        def approach(self, target: Body, distance: float = 0.4) -> Action:
            '''Walk up to ``target`` and stop ``distance`` metres from it.'''

Parameter types: ``float``, ``int``, ``bool``, ``str``, :data:`Vector`, :data:`NodeName`,
``Literal[...]`` choices, a class (a reference to a world object, resolved by name through
:func:`resolve_object`), or what an :class:`Accepts` mark says (:data:`Place`, :data:`Item`,
:data:`Heading`, a built-in name or file: ``Annotated[str, Accepts("named", names,
".toml")]``). ``*args`` and ``**kwargs`` are allowed (typed the same way).
Each parameter is described in the doc string's NumPy ``Parameters`` section; the text above
it is the command's description.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NewType

from twig.action import Action

Vector = tuple[float, float, float]
"""A point or direction ``(x, y, z)`` in metres (or the unit the parameter documents)."""
NodeName = NewType("NodeName", str)
"""The name of one of the target body's nodes (``l_hand``, ``head``, ``0``...)."""
Json = Any
"""What a query returns: None, bool, number, string, list or dict of those."""

COMMAND_NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
"""Command names: lowercase words joined by ``-`` (``wait-all``, ``move-node``)."""
RESERVED_PARAMS = frozenset({"target"})
"""Parameter names a command may not use (a tool call names its target object ``target``)."""

Kind = Literal["durative", "query", "instant"]
ParamType = Literal["float", "int", "bool", "str", "vector", "node", "choice", "object", "any",
                    "place", "item", "heading", "named", "mapping"]


@dataclass(frozen=True)
class Accepts:
    """What a parameter accepts when its Python type says less (``Annotated[Any,
    Accepts("place")]``): scripts and tool calls are checked against it and the catalogue
    describes it exactly.

    Attributes
    ----------
    type
        ``"place"``: a point (x, y, z) or the name of an object or node; ``"item"``: the name
        of an object or of one node (``clipboard/clip``); ``"heading"``: a heading in radians,
        a point or a name; ``"named"``: one of ``names()`` or a file path ending in
        ``suffix``; ``"mapping"``: names to names (a JSON object of strings; not in scripts).
    names
        For ``"named"``: a function giving the built-in names (read when the command is
        described).
    suffix
        For ``"named"``: the file extension a path must end with (``.bvh``).
    """

    type: ParamType
    names: Callable[[], Any] | None = None
    suffix: str = ""


Place = Annotated[Any, Accepts("place")]
"""A point ``(x, y, z)`` in metres, or the name of an object (``ball``; followed as it moves)
or of a node (``kid/l_hand``)."""
Item = Annotated[Any, Accepts("item")]
"""The name of an object (``ball``), or of one of its nodes (``clipboard/clip``)."""
Heading = Annotated[Any, Accepts("heading")]
"""A heading in radians about +y (0 faces +z), or a :data:`Place` to face."""


@dataclass(frozen=True)
class Param:
    """One parameter of a command.

    Attributes
    ----------
    name
        Keyword name (``key=value`` in scripts, a property in JSON requests).
    type
        What values it takes (see the module doc).
    default
        Default value, or ``Param.REQUIRED``.
    choices
        The allowed strings of a ``"choice"`` parameter.
    cls
        The class of an ``"object"`` parameter.
    variadic
        ``"*"`` (takes the remaining positional values), ``"**"`` (the remaining keywords) or "".
    doc
        What it means, with its unit (from the doc string's ``Parameters`` section).
    suffix
        The file extension of a ``"named"`` parameter's paths (its built-in names are
        ``choices``).
    """

    REQUIRED: typing.ClassVar[object] = inspect.Parameter.empty

    name: str
    type: ParamType
    default: Any = inspect.Parameter.empty
    choices: tuple[str, ...] = ()
    cls: type | None = None
    variadic: str = ""
    doc: str = ""
    suffix: str = ""

    @property
    def required(self) -> bool:
        return self.default is Param.REQUIRED and not self.variadic


@dataclass(frozen=True)
class Command:
    """A registered command: its script name, parameters, kind and documentation."""

    name: str
    function: Callable[..., Any]
    params: tuple[Param, ...]
    kind: Kind
    doc: str
    owner: type

    @property
    def summary(self) -> str:
        """The first line of the doc string."""
        return self.doc.split("\n", 1)[0]

    @property
    def usage(self) -> str:
        """``move-node node position [seconds=1.0] [hold=false]``."""
        parts = [self.name]
        for p in self.params:
            if p.variadic == "*":
                parts.append(f"[{p.name}...]")
            elif p.variadic == "**":
                parts.append("[field=value...]")
            elif p.required:
                parts.append(p.name)
            elif p.default is None or p.default == "":
                parts.append(f"[{p.name}]")
            else:
                parts.append(f"[{p.name}={format_default(p.default)}]")
        return " ".join(parts)


def format_default(value: Any) -> str:
    """A default as a script would write it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "(" + ", ".join(f"{v:g}" for v in value) + ")"
    return f"{value:g}" if isinstance(value, float) else str(value)


_MARK = "__twig_command__"
_external: dict[type, dict[str, Callable[..., Any]]] = {}
_handles: dict[str, list[tuple[type, Callable[[Any, Any], Any]]]] = {}
_cache: dict[type, dict[str, Command]] = {}


def command(fn: Callable[..., Any] | None = None, *, name: str | None = None,
            on: type | None = None) -> Any:
    """Register a function as a command (use as ``@command`` or ``@command(name=...)``).

    Parameters
    ----------
    fn
        A method of the target class (its first parameter is the target), or, with ``on``, a
        function whose first parameter is an instance of ``on``.
    name
        The script name; default the function's name with ``_`` turned into ``-``.
    on
        The target class, for commands defined outside it (on a class from a lower layer).
    """

    def mark(f: Callable[..., Any]) -> Callable[..., Any]:
        script_name = name or f.__name__.replace("_", "-")
        if f.__name__.startswith("_") or not COMMAND_NAME.fullmatch(script_name):
            raise ValueError(f"{f.__qualname__}: command names are lowercase words joined by "
                             f"'-' and not private, got {script_name!r}")
        setattr(f, _MARK, script_name)
        if on is not None:
            _external.setdefault(on, {})[script_name] = f
            _cache.clear()
        return f

    return mark if fn is None else mark(fn)


def command_kind(cls: type) -> str:
    """The word the catalogue uses for targets of ``cls`` (its ``command_kind`` attribute or
    its lowercase class name)."""
    return getattr(cls, "command_kind", cls.__name__.lower())


def commands_of(cls: type) -> dict[str, Command]:
    """Every command callable on an instance of ``cls``: its own and its bases' (the most
    derived class wins when two define the same name)."""
    cached = _cache.get(cls)
    if cached is None:
        cached = {}
        for klass in reversed(cls.__mro__):
            for fn in _external.get(klass, {}).values():
                cached[getattr(fn, _MARK)] = _describe(fn, klass)
            for value in vars(klass).values():
                if callable(value) and hasattr(value, _MARK):
                    cached[getattr(value, _MARK)] = _describe(value, klass)
        _cache[cls] = cached
    return cached


def command_classes() -> list[type]:
    """Classes that define commands, for the catalogue: those given to ``command(on=...)``
    and :func:`register_handle`, and their subclasses that add commands."""
    roots = list(_external) + [cls for entries in _handles.values() for cls, _ in entries]
    found: list[type] = []
    for cls in roots:
        for sub in _subclasses(cls):
            if sub not in found and (sub in _external or any(
                    hasattr(v, _MARK) for v in vars(sub).values())):
                found.append(sub)
    return found


def _subclasses(cls: type) -> list[type]:
    out = [cls]
    for sub in cls.__subclasses__():
        out.extend(_subclasses(sub))
    return out


def register_handle(body_type: str, cls: type,
                    factory: Callable[[Any, Any], Any] | None = None) -> None:
    """Make instances of ``cls`` the command targets for bodies of ``body_type``.

    ``factory(world, body)`` makes one (default: ``cls(world, body)``). The target of
    ``kid: ...`` is then that object (e.g. a motor-control ``Character``); commands are looked
    up on it first and then on the plain body. Later registrations come first.
    """
    entries = _handles.setdefault(body_type, [])
    entries[:] = [(c, f) for c, f in entries if c is not cls]
    entries.insert(0, (cls, factory or cls))


def resolve_object(world: Any, name: str, cls: type | None = None) -> list[Any]:
    """The command targets for the body called ``name``, most specific first: the handles
    registered for its type (:func:`register_handle`), then the body itself. With ``cls``,
    only those that are instances of it (an empty list means a wrong kind of object).

    Raises :class:`~twig.errors.UnknownNameError` when there is no such body.
    """
    body = world.body(name)
    chain = [factory(world, body) for _, factory in _handles.get(body.type, [])] + [body]
    return chain if cls is None else [obj for obj in chain if isinstance(obj, cls)]


def _describe(fn: Callable[..., Any], owner: type) -> Command:
    hints = typing.get_type_hints(fn, localns={"Action": Action, "Vector": Vector,
                                                "NodeName": NodeName, "Json": Json},
                                  include_extras=True)
    sig = inspect.signature(fn)
    doc, docs = split_doc(inspect.cleandoc(fn.__doc__ or ""))
    if not doc:
        raise ValueError(f"{fn.__qualname__}: a command needs a doc string")
    names = list(sig.parameters)[1:]
    unknown = sorted(set(docs) - set(names))
    if unknown:
        raise ValueError(f"{fn.__qualname__}: the doc string describes {unknown[0]!r}, which "
                         "is not a parameter")
    params = []
    for p in list(sig.parameters.values())[1:]:
        if p.name in RESERVED_PARAMS:
            raise ValueError(f"{fn.__qualname__}: parameter name {p.name!r} is reserved")
        variadic = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        params.append(_param(p.name, hints.get(p.name, Any), p.default, variadic, fn,
                             docs.get(p.name, "")))
    ret = hints.get("return", type(None))
    kind: Kind = ("durative" if ret is Action else "instant" if ret is type(None)
                  else "query")
    return Command(getattr(fn, _MARK), fn, tuple(params), kind, doc, owner)


_SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}\n", re.MULTILINE)


def split_doc(doc: str) -> tuple[str, dict[str, str]]:
    """A command doc string's description (what precedes its ``Parameters`` section) and
    each parameter's text from that section (``*points`` and ``**fields`` by their names)."""
    sections = list(_SECTION.finditer(doc))
    start = next((m for m in sections if m.group(1) == "Parameters"), None)
    if start is None:
        return doc.strip(), {}
    end = next((m.start() for m in sections if m.start() > start.start()), len(doc))
    texts: dict[str, list[str]] = {}
    current: list[str] = []
    for line in doc[start.end():end].splitlines():
        if line.strip() and not line[0].isspace():
            current = texts.setdefault(line.split(":")[0].strip().lstrip("*"), [])
        elif line.strip():
            current.append(line.strip())
    rest = (doc[:start.start()] + doc[end:]).strip()
    return rest, {name: " ".join(words) for name, words in texts.items()}


def _param(name: str, hint: Any, default: Any, variadic: str, fn: Callable[..., Any],
           doc: str) -> Param:
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and default is None:
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(options) == 1:  # ``X | None = None``: an optional X
            return _param(name, options[0], default, variadic, fn, doc)
    if typing.get_origin(hint) is Annotated:
        base, *marks = typing.get_args(hint)
        accepts = next((m for m in marks if isinstance(m, Accepts)), None)
        if accepts is None:
            return _param(name, base, default, variadic, fn, doc)
        names = tuple(accepts.names()) if accepts.names is not None else ()
        return Param(name, accepts.type, default, names, variadic=variadic, doc=doc,
                     suffix=accepts.suffix)
    simple = {float: "float", int: "int", bool: "bool", str: "str", NodeName: "node"}
    if hint in simple:
        return Param(name, simple[hint], default, variadic=variadic, doc=doc)
    if hint == Vector:
        return Param(name, "vector", default, variadic=variadic, doc=doc)
    if typing.get_origin(hint) is Literal:
        return Param(name, "choice", default, tuple(typing.get_args(hint)), variadic=variadic,
                     doc=doc)
    if hint is Any:
        return Param(name, "any", default, variadic=variadic, doc=doc)
    if isinstance(hint, type) and not isinstance(hint, types.GenericAlias):
        return Param(name, "object", default, cls=hint, variadic=variadic, doc=doc)
    raise ValueError(f"{fn.__qualname__}: parameter {name!r} has a type commands cannot take: "
                     f"{hint!r}")
