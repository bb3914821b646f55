"""Expanding a spec's ``[[jobs]]`` tables into jobs, each named by the hash of what it runs.

A grid table gives one job per combination of its scenes, scripts, durations, ``vary`` values
and seeds (seeds vary fastest); a random table draws ``samples`` sets of ``vary`` values from
a generator seeded with ``sample_seed`` and crosses them with the rest. A job's parameters are
plain JSON; its id is the scene's stem and the first 12 hex digits of the SHA-256 of those
parameters, which include the SHA-256 of the scene and script files: the same job has the
same id on every run and machine, and editing a scene file makes new jobs.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from twig.batch.spec import BatchError, JobsTable, Range, read_spec, spec_path
from twig.errors import SceneError


@dataclass(frozen=True)
class Job:
    """One simulation to run.

    Attributes
    ----------
    id
        ``<scene stem>-<hash>``: the name of its folder and manifest row.
    group, index
        The ``[[jobs]]`` table it came from and its place in that table's expansion.
    params
        What it runs, as JSON values: ``scene`` and ``script`` as the spec wrote them with
        their files' ``scene_sha256`` and ``script_sha256``, ``seed`` (None: the scene's),
        ``seconds`` (None: the scene's), ``until``, ``overrides`` (dotted scene field ->
        value), ``outputs`` and ``video`` (size and fps, with an ``mp4`` output).
    scene
        What :func:`twig.scenes.load_scene` takes: a built-in name or an absolute path.
    script
        Absolute path of the job's ``.twig`` script, or None.
    """

    id: str
    group: str
    index: int
    params: dict[str, Any]
    scene: str
    script: str | None


@dataclass(frozen=True)
class BatchSpec:
    """A spec file expanded: its ``path``, ``description`` and ``jobs`` in spec order
    (``duplicates``: jobs dropped because an earlier one had the same parameters)."""

    path: Path
    description: str
    jobs: list[Job]
    duplicates: int


def job_id(params: dict[str, Any]) -> str:
    """``<scene stem>-<first 12 hex digits of the SHA-256 of the canonical JSON params>``."""
    text = json.dumps(params, sort_keys=True, separators=(",", ":"))
    stem = re.sub(r"[^A-Za-z0-9_-]", "_", Path(params["scene"]).stem) or "scene"
    return f"{stem}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


class _Files:
    """Resolves scene and script names against the spec's folder, hashing each file once."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self._hashes: dict[Path, str] = {}

    def _sha(self, path: Path) -> str:
        if path not in self._hashes:
            self._hashes[path] = hashlib.sha256(path.read_bytes()).hexdigest()
        return self._hashes[path]

    def scene(self, text: str, where: str) -> tuple[str, str]:
        """(what load_scene takes, the file's SHA-256) for a scene field value."""
        from twig.scenes import scene_path

        if text.endswith(".toml"):
            path = (self.base / text).resolve()
            if not path.is_file():
                raise BatchError(f"{where}: scene file {str(path)!r} does not exist")
            return str(path), self._sha(path)
        try:
            return text, self._sha(scene_path(text))
        except SceneError as e:
            raise BatchError(f"{where}: {e}") from None

    def script(self, text: str | None, where: str) -> tuple[str | None, str | None]:
        """(absolute path, SHA-256) of a script field value (None, None for no script)."""
        if text is None:
            return None, None
        path = (self.base / text).resolve()
        if not path.is_file():
            raise BatchError(f"{where}: script {str(path)!r} does not exist")
        return str(path), self._sha(path)


def _steps(axis: Range, where: str) -> list[Any]:
    """The ``steps`` evenly spaced values of a range (integers when both ends are)."""
    values = np.linspace(np.asarray(axis.min, dtype=np.float64),
                         np.asarray(axis.max, dtype=np.float64), axis.steps)
    if isinstance(axis.min, list):
        return [[float(v) for v in row] for row in values]
    if isinstance(axis.min, int) and isinstance(axis.max, int):
        if not (values == np.rint(values)).all():
            raise BatchError(f"{where}: {axis.steps} steps from {axis.min} to {axis.max} do "
                             "not land on integers (write the ends as floats for floats)")
        return [int(v) for v in values]
    return [float(v) for v in values]


def _draw(rng: np.random.Generator, axis: list[Any] | Range, where: str) -> Any:
    """One random value of a ``vary`` entry."""
    if isinstance(axis, list):
        return axis[int(rng.integers(len(axis)))]
    if axis.steps is not None:
        values = _steps(axis, where)
        return values[int(rng.integers(len(values)))]
    if isinstance(axis.min, list):
        return [float(v) for v in rng.uniform(axis.min, axis.max)]
    if isinstance(axis.min, int) and isinstance(axis.max, int):
        return int(rng.integers(axis.min, axis.max, endpoint=True))
    return float(rng.uniform(axis.min, axis.max))


def _override_sets(table: JobsTable) -> list[dict[str, Any]]:
    """Every set of ``vary`` values the table asks for, in order."""
    keys = list(table.vary)
    where = f"{table.where}: [vary]"
    if table.sampling == "random":
        rng = np.random.default_rng(table.sample_seed)
        return [{k: _draw(rng, table.vary[k], f"{where}: {k!r}") for k in keys}
                for _ in range(table.samples)]
    axes = [a if isinstance(a, list) else _steps(a, f"{where}: {k!r}")
            for k, a in table.vary.items()]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*axes)]


def expand(table: JobsTable, files: _Files) -> list[Job]:
    """The jobs of one checked ``[[jobs]]`` table, in order (seeds vary fastest)."""
    jobs = []
    combos = itertools.product(table.scenes, table.scripts, table.seconds,
                               _override_sets(table), table.seeds)
    for index, (scene, script, seconds, overrides, seed) in enumerate(combos):
        load_name, scene_sha = files.scene(scene, f"{table.where}: field 'scene'")
        script_path, script_sha = files.script(script, f"{table.where}: field 'script'")
        params = {"scene": scene, "scene_sha256": scene_sha, "script": script,
                  "script_sha256": script_sha, "seed": seed,
                  "seconds": None if seconds is None else float(seconds),
                  "until": table.until, "overrides": overrides, "outputs": table.outputs,
                  "video": table.video}
        jobs.append(Job(job_id(params), table.name, index, params, load_name, script_path))
    return jobs


def load_spec(name: str | Path) -> BatchSpec:
    """Read, check and expand a spec file (a ``.toml`` path or a built-in spec name);
    :class:`BatchError` names the file, table and field of anything wrong."""
    path = spec_path(name)
    description, tables = read_spec(path)
    files = _Files(path.parent)
    jobs: dict[str, Job] = {}
    total = 0
    names = set()
    for table in tables:
        if table.name in names:
            raise BatchError(f"{table.where}: field 'name': {table.name!r} names an earlier "
                             "[[jobs]] table too")
        names.add(table.name)
        for job in expand(table, files):
            total += 1
            jobs.setdefault(job.id, job)
    return BatchSpec(path, description, list(jobs.values()), total - len(jobs))
