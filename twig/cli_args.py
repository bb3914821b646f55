"""What the ``twig`` command accepts: its parser (one-line errors, "did you mean", every
default in ``--help``), the argument types that refuse bad values before any work, and the
checks of output paths and ports made before a scene is loaded."""

from __future__ import annotations

import argparse
import errno
import math
import os
import sys
from pathlib import Path
from typing import NoReturn

from twig.errors import TwigError, did_you_mean

MAX_SEED = 2**63 - 1
"""The largest seed accepted (NumPy's generators take any non-negative integer; a seed is
also written to recordings and manifests as a signed 64-bit integer)."""


class UsageError(TwigError):
    """A command-line value that cannot work (a busy port, an unwritable output path)."""


class DefaultsFormatter(argparse.HelpFormatter):
    """Help text that ends with ``(default: X)`` for every option with a real default whose
    help does not already say it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if ("default" in text or default in (None, False, argparse.SUPPRESS)
                or not action.option_strings):
            return text
        return f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, ``twig run: error: ...``, with a "did you
    mean" for a misspelled command or choice; exits with status 2 as argparse does."""

    def __init__(self, *args, formatter_class=DefaultsFormatter, **kwargs) -> None:
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def _check_value(self, action: argparse.Action, value: object) -> None:
        if action.choices is not None and value not in action.choices:
            raise argparse.ArgumentError(
                action, f"invalid choice {value!r}{did_you_mean(str(value), action.choices)}"
                        f" (choose from {', '.join(map(str, action.choices))})")

    def error(self, message: str) -> NoReturn:
        if message.startswith("unrecognized arguments: "):
            words = message.split(": ", 1)[1].split()
            message += did_you_mean(words[0].split("=")[0], self._all_options())
        print(f"{self.prog}: error: {message} (see '{self.prog} --help')", file=sys.stderr)
        raise SystemExit(2)


    def _all_options(self) -> list[str]:
        """The option strings of this parser and of its subcommands."""
        found = []
        for action in self._actions:
            found += action.option_strings
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    found += [o for a in sub._actions for o in a.option_strings]
        return found


def seconds(text: str) -> float:
    """A duration in seconds: a finite number above 0."""
    value = _number(text, float, "a number of seconds")
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {text}")
    return value


def positive(text: str) -> float:
    """A finite number above 0 (a speed, a frame rate)."""
    value = _number(text, float, "a number")
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text}")
    return value


def frames_per_second(text: str) -> int:
    """A video frame rate: an integer in 1..120."""
    value = _number(text, int, "an integer")
    if not 1 <= value <= 120:
        raise argparse.ArgumentTypeError(f"expected frames per second in 1..120, got {text}")
    return value


def seed(text: str) -> int:
    """A random seed: an integer in 0..2**63-1."""
    value = _number(text, int, "an integer seed")
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"expected a seed in 0..{MAX_SEED}, got {text}")
    return value


def port(text: str) -> int:
    """A TCP port: 0 (any free port) to 65535."""
    value = _number(text, int, "a port number")
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port in 0..65535 (0: any free port), "
                                         f"got {text}")
    return value


def port_or_none(text: str) -> int:
    """A TCP port, or -1 for none."""
    if text.strip() == "-1":
        return -1
    try:
        return port(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a port in 0..65535 (0: any free port, "
                                         f"-1: none), got {text}") from None


def workers(text: str) -> int:
    """A number of worker processes: 1 or more."""
    value = _number(text, int, "a number of workers")
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected 1 or more workers, got {text}")
    return value


def count(text: str) -> int:
    """A count of things (seeds, samples): an integer, 1 or more."""
    value = _number(text, int, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected 1 or more, got {text}")
    return value


def _number(text: str, kind: type, what: str):
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None


def check_output(option: str, path: str | None, folder_ok: bool = False) -> None:
    """Raise :class:`UsageError` now if ``path`` (given to ``option``) cannot be written
    later: its folder is missing or read-only, or it is a folder (unless ``folder_ok``)."""
    if not path:
        return
    p = Path(path)
    where = f"{option} {path}"
    folder = folder_ok and (str(path).endswith(("/", "\\")) or p.is_dir())
    if p.is_dir() and not folder:
        raise UsageError(f"{where}: is a folder; expected a file name")
    parent = p if folder else p.parent
    while folder and not parent.exists() and parent != parent.parent:
        parent = parent.parent  # a frames/ folder is made with its parents
    if not parent.is_dir():
        raise UsageError(f"{where}: no folder {str(parent)!r} to write it in")
    if not os.access(parent, os.W_OK) or (p.is_file() and not os.access(p, os.W_OK)):
        raise UsageError(f"{where}: permission denied")


def check_suffix(option: str, path: str | None, *suffixes: str) -> None:
    """Raise :class:`UsageError` unless ``path`` ends in one of ``suffixes``."""
    if path and Path(path).suffix.lower() not in suffixes:
        raise UsageError(f"{option} {path}: expected a file name ending in "
                         f"{' or '.join(suffixes)}")


def check_port_free(option: str, host: str, number: int | None) -> None:
    """Raise :class:`UsageError` if TCP ``number`` on ``host`` cannot be listened on now (in
    use, or not an address of this machine); 0 and None are not checked."""
    import socket  # only twig serve's ports: not imported for the other commands

    if not number:
        return
    try:
        infos = socket.getaddrinfo(host, number, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise UsageError(f"--host {host}: not an address: {e.strerror}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
        try:
            probe.bind(address)
        except OSError as e:
            reason = ("is in use (another twig serve?)" if e.errno == errno.EADDRINUSE
                      else e.strerror)
            raise UsageError(f"{option} {number}: port {number} on {host} {reason}; choose "
                             f"another with {option}, or 0 for any free port") from None
