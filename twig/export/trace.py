"""The trace: every event of a world, one JSON object per line (DESIGN.md, "Trace").

Behaviour switches, focus changes, contacts over the world's ``contact_event_energy``, pain,
action starts and ends, grabs and releases and hug phases all pass through ``world.events``;
:class:`TraceWriter` subscribes to all of them and writes them in emission order, ``t`` in
seconds of simulated time. ``twig run SCENE --trace FILE.jsonl`` uses it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, TYPE_CHECKING

from twig.errors import TwigError
from twig.events import Event

if TYPE_CHECKING:
    from twig.physics import PhysicsWorld


class TraceError(TwigError):
    """A trace file cannot be written or read."""


class TraceWriter:
    """Write ``world``'s events to ``path`` (JSON Lines) until :meth:`close`.

    Usable as a context manager. Lines are compact JSON with keys in emission order, so the
    same run gives the same bytes.
    """

    def __init__(self, world: PhysicsWorld, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._file: IO[str] | None = self.path.open("w", encoding="utf-8")
        except OSError as e:
            raise TraceError(f"cannot write trace {str(self.path)!r}: {e}") from None
        self.count = 0
        self._subscription = world.events.subscribe(self._write)

    def _write(self, event: Event) -> None:
        if self._file is not None:
            self._file.write(json.dumps(event, separators=(",", ":")) + "\n")
            self.count += 1

    def close(self) -> None:
        """Stop listening and close the file (idempotent)."""
        self._subscription.cancel()
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_trace(path: str | Path) -> list[Event]:
    """The events of a trace file, in order; :class:`TraceError` names a bad line."""
    out = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise TraceError(f"cannot read trace {str(path)!r}: {e}") from None
    for k, line in enumerate(lines, start=1):
        try:
            event = json.loads(line)
        except json.JSONDecodeError as e:
            raise TraceError(f"{path}:{k}: not JSON: {e}") from None
        if not (isinstance(event, dict) and "t" in event and "type" in event):
            raise TraceError(f"{path}:{k}: an event needs 't' and 'type', got {line[:80]!r}")
        out.append(event)
    return out
