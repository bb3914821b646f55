"""Session recording and replay (``twig serve --record FILE``, ``twig replay FILE``).

Commands from all clients run between ticks in arrival order, so a session is reproducible
from its command log: each executed line with the tick it ran before and the client it came
from. The log is JSON Lines: a header (scene, seed), one record per command, and an end
record with the final tick and state hash::

    {"twig": "session", "version": 1, "scene": "/abs/office.toml", "seed": 0, "tick": 0,
     "hash": "a41b..."}
    {"tick": 61, "client": 1, "line": "kid: move-node l_hand (0.3, 1.2, 0.2)"}
    {"tick": 75, "client": 2, "request": {"target": "kid", "command": "motion-graph-walk",
     "args": {"points": [[4, 0, 4], [4, 0, 3]]}}}
    {"end": 600, "hash": "5f0c..."}

A command is logged as its script line, or, when a JSON request gave it values no script line
holds (a list of points or names, an object), as that request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from twig.errors import ParseError, TwigError
from twig.physics import PhysicsWorld
from twig.script.runner import open_world
from twig.script.session import Reply, Session
from twig.script.syntax import Call, Location, format_call, parse_line, writable
from twig.server.protocol import json_call, json_request
from twig.world import World

VERSION = 1


def scene_reference(scene: str | None) -> str | None:
    """How a log names its scene: a built-in name, or an absolute ``.toml`` path."""
    if scene is not None and scene.endswith(".toml"):
        return str(Path(scene).resolve())
    return scene


class Recorder:
    """Writes the command log of a served world (call its methods on the world's thread)."""

    def __init__(self, path: str | Path, world: PhysicsWorld, scene: str | None) -> None:
        try:
            self._file: IO[str] = open(path, "w", encoding="utf-8")  # noqa: SIM115
        except OSError as e:
            raise TwigError(f"cannot write the session record {str(path)!r}: {e}") from None
        self._write({"twig": "session", "version": VERSION, "scene": scene_reference(scene),
                     "seed": world.seed, "tick": world.tick, "hash": world.state_hash()})

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(json.dumps(record, separators=(",", ":")) + "\n")

    def command(self, tick: int, client: int, call: Call) -> None:
        """Log one command about to run before tick ``tick``."""
        entry = ({"line": format_call(call)} if writable(call) else
                 {"request": json_request(call)})
        self._write({"tick": tick, "client": client, **entry})

    def flush(self) -> None:
        """Write what is buffered (after each batch: a killed server leaves its commands)."""
        if not self._file.closed:
            self._file.flush()

    def close(self, world: PhysicsWorld) -> None:
        """Write the end record (final tick and state hash) and close the file."""
        if not self._file.closed:
            self._write({"end": world.tick, "hash": world.state_hash()})
            self._file.close()


@dataclass
class ReplayResult:
    """What a replay reached: the world, the commands run, and the recorded end (if any)."""

    world: World
    commands: int
    errors: int
    end_tick: int | None
    recorded_hash: str | None

    @property
    def matches(self) -> bool | None:
        """Whether the replay reached the recorded state hash (None: no end record)."""
        if self.recorded_hash is None:
            return None
        return self.world.state_hash() == self.recorded_hash


def _records(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise TwigError(f"cannot read the session record {str(path)!r}: {e}") from None
    records = []
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            raise TwigError(f"{path}:{number}: not a JSON record") from None
        if not isinstance(record, dict):
            raise TwigError(f"{path}:{number}: expected a JSON object")
        records.append(record)
    if not records or records[0].get("twig") != "session":
        raise TwigError(f"{path}: not a twig session record (no header line)")
    return records


MAX_TICK = 10 ** 8
"""Latest tick a session record may name (18 days at 60 ticks a second): a replay steps the
world to it."""


def _tick(record: dict[str, Any], field: str, path: Path, number: int) -> int:
    value = record.get(field)
    if not (isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TICK):
        raise TwigError(f"{path}:{number}: field {field!r}: expected a tick, an integer from 0 "
                        f"to {MAX_TICK}, got {str(value)[:40]}")
    return value


def replay(path: str | Path, world: World | None = None) -> ReplayResult:
    """Rebuild the recorded scene (or start from ``world``, for a world built in Python) and
    run every logged command at its tick.

    Raises TwigError if the starting world is not the recorded one (its state hash differs).
    """
    path = Path(path)
    records = _records(path)
    header = records[0]
    if world is None:
        scene, seed = header.get("scene"), header.get("seed")
        if not (isinstance(scene, str | None) and (seed is None or (isinstance(seed, int)
                                                    and not isinstance(seed, bool)))):
            raise TwigError(f"{path}:1: expected \"scene\" (a built-in scene or a .toml "
                            "path) and \"seed\" (an integer)")
        try:
            world = open_world(scene, seed)
        except TwigError as e:
            raise TwigError(f"{path}:1: {e}") from None
    world.step(max(0, _tick({"tick": 0, **header}, "tick", path, 1) - world.tick))
    if header.get("hash") not in (None, world.state_hash()):
        raise TwigError(f"{path}: the world to replay on is not the recorded one (its state "
                        "hash differs at the start: another scene, seed or twig version?)")
    sessions: dict[int, Session] = {}
    errors = 0

    def count(reply: Reply) -> None:
        nonlocal errors
        errors += reply.kind == "error"

    end = recorded_hash = None
    commands = 0
    for number, record in enumerate(records[1:], start=2):
        if "end" in record:
            end, recorded_hash = _tick(record, "end", path, number), record.get("hash")
            break
        tick, client = _tick(record, "tick", path, number), record.get("client")
        line, request = record.get("line"), record.get("request")
        if not (isinstance(client, int) and (isinstance(line, str) or isinstance(request, dict))):
            raise TwigError(f"{path}:{number}: expected tick, client and line (or request)")
        world.step(max(0, tick - world.tick))
        where = Location(str(path), number)
        if isinstance(line, str):
            call = parse_line(line, where)
        else:
            try:
                call = json_call(request, where)
            except ParseError as e:
                raise TwigError(f"{path}:{number}: {e}") from None
        if call is not None:
            sessions.setdefault(client, Session(world, count)).run(call)
            commands += 1
    if end is not None:
        world.step(max(0, end - world.tick))
    return ReplayResult(world, commands, errors, end, recorded_hash)
