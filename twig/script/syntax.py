"""The script language: ``name: method arg arg key=value`` lines (Horswill 2009, XI.C).

One command per line::

    # comments and blank lines are ignored
    kid: move-node l_hand (0.3, 1.2, 0.4) seconds=0.5     # waits until the hand arrives
    ball: push (0, 0, 2) &                                # '&': run on, do not wait
    - kid: pin l_foot                                     # '-': a failure does not stop
    world: wait-all

Values are numbers (``2``, ``-0.5``, ``1e3``; at most :data:`MAX_MAGNITUDE` in size, written in
at most :data:`MAX_NUMBER_TEXT` characters), double-quoted strings with backslash escapes (no
control characters or lone surrogates, in strings or names),
vectors ``(x, y, z)``, ``true``/``false``, and bare names (``ball``, ``l_hand``, ``on``). What a
value means (an object, a choice, a string) is decided by the command's parameter, not here.
:func:`parse_line` and :func:`format_call` are inverses on every :class:`Call`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from twig.commands import COMMAND_NAME
from twig.errors import ParseError


@dataclass(frozen=True)
class Name:
    """A bare word: an object name, a node name or a keyword value (``on``, ``walk``)."""

    text: str

    def __str__(self) -> str:
        return self.text


Value = bool | int | float | str | Name | tuple[float, float, float]
"""A literal: a number, a quoted string (``str``), a :class:`Name`, a vector, a boolean."""


@dataclass(frozen=True)
class Location:
    """Where a line came from: file (or ``<request>``), 1-based line and column."""

    file: str = "<line>"
    line: int = 1
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Call:
    """One parsed command line.

    Attributes
    ----------
    target
        ``"world"`` or the name of a world object.
    method
        The command name (``move-node``).
    args, kwargs
        Positional values, then ``(key, value)`` pairs in the order written.
    parallel
        The line ended with ``&``: do not wait for the action.
    keep_going
        The line started with ``-``: a failure is reported and the script goes on.
    where
        Source location (not part of equality).
    """

    target: str
    method: str
    args: tuple[Value, ...] = ()
    kwargs: tuple[tuple[str, Value], ...] = ()
    parallel: bool = False
    keep_going: bool = False
    where: Location = field(default=Location(), compare=False)


NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*")
KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NUMBER = re.compile(r"[-+]?(?:\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")
_ESCAPES = {'"': '"', "\\": "\\"}
_QUOTE = {v: k for k, v in _ESCAPES.items()}
MAX_MAGNITUDE = 1e9
"""Largest magnitude of a number in a line (seconds, metres, counts: larger is a mistake)."""
MAX_NUMBER_TEXT = 40
"""Most characters of one written number."""
WHAT_VALUE = 'a value (a number, a "string", a name, (x, y, z), true or false)'


class _Scanner:
    """Character-level reader of one line, raising ParseError at the current column."""

    def __init__(self, text: str, where: Location) -> None:
        self.text = text
        self.pos = 0
        self.where = where

    def error(self, expected: str, pos: int | None = None) -> ParseError:
        pos = self.pos if pos is None else pos
        rest = self.text[pos:pos + 20]
        got = f"{rest!r}" if rest else "the end of the line"
        loc = Location(self.where.file, self.where.line, self.where.column + pos)
        return ParseError(f"{loc}: expected {expected}, got {got}")

    def skip_space(self) -> bool:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1
        return self.pos > start

    def at_end(self) -> bool:
        """True at the end of the line or at a comment."""
        return self.pos >= len(self.text) or self.text[self.pos] == "#"

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def match(self, pattern: re.Pattern[str]) -> str | None:
        m = pattern.match(self.text, self.pos)
        if m is None:
            return None
        self.pos = m.end()
        return m.group()

    def expect(self, char: str, what: str) -> None:
        if self.peek() != char:
            raise self.error(what)
        self.pos += 1

    def string(self) -> str:
        self.expect('"', "a string")
        out = []
        while True:
            c = self.peek()
            if not c:
                raise self.error('a closing "')
            at = self.pos
            self.pos += 1
            if c == '"':
                return "".join(out)
            if c == "\\":
                c = self._escape()
            if not printable_character(c):
                raise self.error(f"a printable character in a string, not {c!r}", at)
            out.append(c)

    def _escape(self) -> str:
        c = self.peek()
        if c in _ESCAPES:
            self.pos += 1
            return _ESCAPES[c]
        if c == "u":
            digits = self.text[self.pos + 1:self.pos + 5]
            if re.fullmatch(r"[0-9a-fA-F]{4}", digits):
                self.pos += 5
                return chr(int(digits, 16))
        raise self.error(r'an escape: \" \\ or \uXXXX', self.pos - 1)

    def number(self) -> int | float:
        start = self.pos
        text = self.match(NUMBER)
        if text is None:
            raise self.error("a number")
        if len(text) > MAX_NUMBER_TEXT:
            raise self.error(f"a number written in at most {MAX_NUMBER_TEXT} characters",
                             start)
        value: int | float = int(text) if re.fullmatch(r"[-+]?\d+", text) else float(text)
        if not abs(value) <= MAX_MAGNITUDE:
            raise self.error(f"a number from {-MAX_MAGNITUDE:g} to {MAX_MAGNITUDE:g}", start)
        return value

    def vector(self) -> tuple[float, float, float]:
        self.expect("(", "a vector (x, y, z)")
        comps = []
        for k in range(3):
            self.skip_space()
            comps.append(float(self.number()))
            self.skip_space()
            self.expect("," if k < 2 else ")", "',' between vector components" if k < 2
                        else "')' after three vector components")
        return (comps[0], comps[1], comps[2])

    def value(self) -> Value:
        c = self.peek()
        if c == '"':
            return self.string()
        if c == "(":
            return self.vector()
        if c and (c.isdigit() or c in "+-."):
            return self.number()
        word = self.match(NAME)
        if word is None:
            raise self.error(WHAT_VALUE)
        return {"true": True, "false": False}.get(word, Name(word))


def printable_character(c: str) -> bool:
    """Whether ``c`` may appear in a name or a string: not a control character (U+0000 to
    U+001F, U+007F to U+009F) and not a lone surrogate (U+D800 to U+DFFF), which no UTF-8
    reply could carry."""
    o = ord(c)
    return not (o < 0x20 or 0x7F <= o <= 0x9F or 0xD800 <= o <= 0xDFFF)


def check_text(text: str, what: str) -> str:
    """``text`` if every character is :func:`printable_character`; else a ParseError naming
    ``what`` and the first bad character's position."""
    for k, c in enumerate(text):
        if not printable_character(c):
            raise ParseError(f"{what}: expected printable characters, got {c!r} at "
                             f"character {k + 1}")
    return text


def parse_line(text: str, where: Location | None = None) -> Call | None:
    """Parse one line; None for a blank line or a comment.

    Raises :class:`~twig.errors.ParseError` naming file:line:column and what was expected.
    """
    s = _Scanner(text.rstrip("\r\n"), where or Location())
    s.skip_space()
    if s.at_end():
        return None
    keep_going = s.peek() == "-"
    if keep_going:
        s.pos += 1
        s.skip_space()
    target = s.string() if s.peek() == '"' else s.match(NAME)
    if not target:
        raise s.error("an object name (or world) followed by ':'")
    s.skip_space()
    s.expect(":", f"':' after {target!r}")
    s.skip_space()
    method = s.match(COMMAND_NAME)
    if method is None or (s.peek() and s.peek() not in " \t#"):
        raise s.error("a command name (lowercase words joined by '-', like move-node)",
                      None if method is None else s.pos - len(method))
    return _arguments(s, target, method, keep_going)


def _arguments(s: _Scanner, target: str, method: str, keep_going: bool) -> Call:
    args: list[Value] = []
    kwargs: list[tuple[str, Value]] = []
    parallel = False
    start = s.pos
    while s.skip_space() or s.pos == start:
        start = -1
        if s.at_end():
            break
        if s.peek() == "&":
            s.pos += 1
            s.skip_space()
            if not s.at_end():
                raise s.error("the end of the line after '&'")
            parallel = True
            break
        key_start = s.pos
        key = s.match(KEY)
        if key is not None and s.peek() == "=":
            s.pos += 1
            if any(k == key for k, _ in kwargs):
                raise s.error(f"each key once, but {key!r} is given twice", key_start)
            kwargs.append((key, s.value()))
        else:
            s.pos = key_start
            if kwargs:
                raise s.error("key=value (positional values come before keywords)")
            args.append(s.value())
        if s.peek() and s.peek() not in " \t#":
            raise s.error("a space between values")
    return Call(target, method, tuple(args), tuple(kwargs), parallel, keep_going,
                s.where)


def parse_script(text: str, file: str = "<script>") -> list[Call]:
    """Parse a whole script; every line is checked before anything runs."""
    calls = []
    for number, line in enumerate(text.splitlines(), start=1):
        call = parse_line(line, Location(file, number, 1))
        if call is not None:
            calls.append(call)
    return calls


def read_script(path: str | Path) -> list[Call]:
    """Parse a ``.twig`` file (errors name the file, line and column)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ParseError(f"{p}: cannot read script: {e}") from None
    return parse_script(text, str(p))


def format_value(value: Value) -> str:
    """A value as a script writes it (parses back to an equal value)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, Name):
        return value.text
    if isinstance(value, tuple):
        return "(" + ", ".join(repr(float(v)) for v in value) + ")"
    return '"' + "".join(_quote(c) for c in value) + '"'


def _quote(c: str) -> str:
    if c in _QUOTE:
        return "\\" + _QUOTE[c]
    if not c.isprintable() and ord(c) <= 0xFFFF:
        return f"\\u{ord(c):04x}"
    return c


def writable(call: Call) -> bool:
    """Whether :func:`format_call` can write ``call``: every value is a script value (a JSON
    request's may also be lists and objects, which no script line holds)."""
    return all(_script_value(v) for v in (*call.args, *(v for _, v in call.kwargs)))


def _script_value(v: object) -> bool:
    if isinstance(v, tuple):
        return len(v) == 3 and all(isinstance(c, int | float) and not isinstance(c, bool)
                                   for c in v)
    return isinstance(v, bool | int | float | str | Name)


def format_call(call: Call) -> str:
    """The canonical line for a :func:`writable` ``call``: ``parse_line(format_call(c)) ==
    c``."""
    target = call.target if NAME.fullmatch(call.target) else format_value(call.target)
    parts = [("- " if call.keep_going else "") + f"{target}: {call.method}"]
    parts += [format_value(v) for v in call.args]
    parts += [f"{k}={format_value(v)}" for k, v in call.kwargs]
    if call.parallel:
        parts.append("&")
    return " ".join(parts)
