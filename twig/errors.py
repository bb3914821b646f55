"""The one exception hierarchy of twig, rooted at :class:`TwigError`.

Every error a user can cause (a bad scene file, an invalid node state, an unknown name) is a
subclass with a message that says what was wrong and what was expected, so it can be acted on
without reading the source.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: object, choices: Iterable[object]) -> str:
    """``" (did you mean 'x'?)"`` for the closest of ``choices`` to ``word``, or ``""``: the
    hint every "unknown name" message ends with."""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def describe(error: BaseException) -> str:
    """An unexpected error as one line for a user: its message, never Python's class name
    (the traceback goes to the log)."""
    text = " ".join(str(error).split())
    if isinstance(error, KeyError | IndexError) and error.args:
        text = f"no entry {error.args[0]!r}"
    return f"internal error ({text})" if text else "internal error"


class TwigError(Exception):
    """Base class of every error twig raises on purpose."""


class SceneError(TwigError):
    """A scene file or scene description is malformed (names file, table and field)."""


class PhysicsError(TwigError):
    """A request to the physics world is invalid (bad mass, NaN position, unknown node...).

    The world is left unchanged when this is raised.
    """


class AssetError(TwigError):
    """An asset file (a mesh for a box model) is missing or cannot be read; the message names
    the object, the field and the file."""


class UnknownNameError(TwigError, KeyError):
    """A body, node or scene name that does not exist."""

    def __str__(self) -> str:
        # KeyError quotes its argument; a user message should read as a sentence.
        return str(self.args[0]) if self.args else ""


class ScriptError(TwigError):
    """A command cannot be run: unknown target or command, wrong arguments, or a failed
    action (names the script line or request and what was expected)."""


class ParseError(ScriptError):
    """A script line does not follow the language (names file:line:column and what was
    expected)."""
