"""A batch's output folder: one folder per finished job and ``manifest.jsonl``.

The manifest has one JSON row per finished job (docs/batch.md lists the fields). It is kept
consistent however the batch stops: a job's files go to ``.partial/<id>/`` and are renamed to
``<id>/`` whole, and only then is its row appended, in one ``write`` call; when a batch starts
and ends the file is rewritten (in spec order) to a temporary file that replaces it in one
rename. A row therefore always has its files, and a killed batch leaves whole rows only (a
last line cut short by a power cut is dropped when the manifest is read).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from twig.batch.spec import OUTPUTS, BatchError

MANIFEST = "manifest.jsonl"
_KIND_OF_SUFFIX = {Path(name).suffix: kind for kind, name in OUTPUTS.items()}


def _line(row: dict[str, Any]) -> str:
    return json.dumps(row, separators=(",", ":")) + "\n"


class Manifest:
    """The rows of ``folder``/manifest.jsonl by job id (a later row of an id wins)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / MANIFEST
        self.rows: dict[str, dict[str, Any]] = {}
        self.torn = 0
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as e:
            raise BatchError(f"{self.path}: cannot read the manifest: {e}") from None
        for k, line in enumerate(lines, start=1):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                if k == len(lines):  # an append cut short: that job runs again
                    self.torn += 1
                    continue
                raise BatchError(f"{self.path}:{k}: not a JSON row ({e}); fix or remove "
                                 "the line") from None
            if not isinstance(row, dict) or not isinstance(row.get("job"), str):
                raise BatchError(f"{self.path}:{k}: a manifest row is a JSON object with a "
                                 f"'job' id, got {line[:80]!r}")
            self.rows[row["job"]] = row

    def finished(self, job_id: str) -> bool:
        """Whether ``job_id`` has a successful row whose files all exist."""
        row = self.rows.get(job_id)
        return row is not None and row.get("status") == "ok" and all(
            (self.folder / f).is_file() for paths in row.get("files", {}).values()
            for f in paths)

    def add(self, row: dict[str, Any]) -> None:
        """Append ``row`` (one write to a file opened for appending)."""
        self.rows[row["job"]] = row
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, _line(row).encode("utf-8"))
        finally:
            os.close(fd)

    def rewrite(self, order: Iterable[str]) -> None:
        """Replace the file, in one rename, by every row: those of ``order`` first, in that
        order, then rows of jobs no longer in the spec."""
        first = [j for j in dict.fromkeys(order) if j in self.rows]
        seen = set(first)
        rest = [j for j in self.rows if j not in seen]
        tmp = self.path.with_name(MANIFEST + ".tmp")
        tmp.write_text("".join(_line(self.rows[j]) for j in first + rest), encoding="utf-8")
        os.replace(tmp, self.path)

    def tidy(self) -> None:
        """Remove ``.partial/`` when no job's files are being written into it."""
        partial = self.folder / ".partial"
        if partial.is_dir() and not any(partial.iterdir()):
            partial.rmdir()

    def store(self, job_id: str, files: dict[str, bytes]) -> dict[str, list[str]]:
        """Write a finished job's ``files`` to ``<job id>/`` (whole, by one rename); their
        paths relative to the folder, by output kind."""
        partial = self.folder / ".partial" / job_id
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        for name, data in files.items():
            (partial / name).write_bytes(data)
        final = self.folder / job_id
        shutil.rmtree(final, ignore_errors=True)
        os.replace(partial, final)
        kinds: dict[str, list[str]] = {}
        for name in sorted(files):
            kinds.setdefault(_KIND_OF_SUFFIX[Path(name).suffix], []).append(f"{job_id}/{name}")
        return kinds
