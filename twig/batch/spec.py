"""Batch spec files (TOML): what to run, read and checked before anything runs.

A spec has an optional ``[batch]`` table (a description and defaults for every jobs table)
and one or more ``[[jobs]]`` tables, each naming scenes, seeds, durations, scripts, outputs
and the scene fields to vary (docs/batch.md). :func:`load_spec` checks every field, naming
the file, the table and the field, and expands the tables into :class:`~twig.batch.job.Job`
values (see :mod:`twig.batch.sweep`).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from twig.errors import TwigError, did_you_mean

OUTPUTS = {"npz": "motion.npz", "bvh": "motion.bvh", "glb": "scene.glb", "mp4": "video.mp4",
           "trace": "trace.jsonl", "check": "check.json"}
"""Output kind -> file name in the job's folder (BVH: one ``motion_<name>.bvh`` per humanoid
when there are several)."""
UNTIL = ("seconds", "script")
SAMPLING = ("grid", "random")
SCRIPT_LIMIT = 600.0
"""Simulated seconds a job with ``until = "script"`` and no ``seconds`` may run at most."""
MAX_JOBS = 100_000
"""Most jobs one ``[[jobs]]`` table may expand to (seeds times values times samples), checked
before any list of them is made."""
MAX_SEED = 2**63 - 1
"""Largest seed (seeds are integers from 0)."""


class BatchError(TwigError):
    """A batch spec is malformed, or a batch cannot run (names the file, table and field)."""


@dataclass(frozen=True)
class Range:
    """A ``{min, max, steps}`` table of ``vary``: numbers or [x, y, z] vectors; ``steps``
    evenly spaced values from ``min`` to ``max`` (a grid needs it; random sampling without it
    draws uniformly, integers when ``min`` and ``max`` are integers)."""

    min: float | list[float]
    max: float | list[float]
    steps: int | None


@dataclass(frozen=True)
class JobsTable:
    """One ``[[jobs]]`` table, checked, with the ``[batch]`` defaults filled in."""

    where: str
    name: str
    scenes: list[str]
    seeds: list[int | None]
    seconds: list[float | None]
    scripts: list[str | None]
    until: str
    outputs: list[str]
    video: dict[str, Any] | None
    sampling: str
    samples: int
    sample_seed: int
    vary: dict[str, list[Any] | Range]


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _one_or_list(check: Callable[[Any], bool], what: str) -> Callable[[Any, str], list]:
    """A field that takes one value or a non-empty list of values (a sweep axis)."""
    def parse(value: Any, where: str) -> list:
        values = value if isinstance(value, list) else [value]
        if not values or not all(check(v) for v in values):
            raise BatchError(f"{where}: expected {what} or a non-empty list of them, "
                             f"got {value!r}")
        return values
    return parse


def _choice(options: tuple[str, ...]) -> Callable[[Any, str], str]:
    def parse(value: Any, where: str) -> str:
        if value not in options:
            raise BatchError(f"{where}: expected one of {', '.join(map(repr, options))}, "
                             f"got {value!r}")
        return value
    return parse


def _is_seed(v: Any) -> bool:
    return _is_int(v) and 0 <= v <= MAX_SEED


def _seeds(value: Any, where: str) -> list[int]:
    if isinstance(value, dict):
        if set(value) != {"start", "count"} or not _is_seed(value["start"]) \
                or not _is_int(value["count"]) or not 1 <= value["count"] <= MAX_JOBS \
                or not _is_seed(value["start"] + value["count"] - 1):
            raise BatchError(f"{where}: expected {{start = integer from 0, count = integer "
                             f"from 1 to {MAX_JOBS}}}, got {value!r}")
        return list(range(value["start"], value["start"] + value["count"]))
    return _one_or_list(_is_seed, "an integer seed from 0 to 2**63 - 1")(value, where)


def _outputs(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(v in OUTPUTS for v in value):
        raise BatchError(f"{where}: expected a list of output kinds from "
                         f"{', '.join(OUTPUTS)}, got {value!r}")
    return sorted(set(value))


def _positive_int(value: Any, where: str) -> int:
    if not _is_int(value) or value < 1:
        raise BatchError(f"{where}: expected a positive integer, got {value!r}")
    return value


def _count(value: Any, where: str) -> int:
    if not _is_int(value) or not 1 <= value <= MAX_JOBS:
        raise BatchError(f"{where}: expected an integer from 1 to {MAX_JOBS}, got {value!r}")
    return value


def _integer(value: Any, where: str) -> int:
    if not _is_int(value):
        raise BatchError(f"{where}: expected an integer, got {value!r}")
    return value


def _name(value: Any, where: str) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9_.-]+", value):
        raise BatchError(f"{where}: expected a name of letters, digits, '_', '.' and '-', "
                         f"got {value!r}")
    return value


def _video_size(value: Any, where: str) -> list[int]:
    from twig.view.video import parse_size

    if not isinstance(value, str):
        raise BatchError(f"{where}: expected a size like \"640x360\", got {value!r}")
    try:
        return list(parse_size(value))
    except TwigError as e:
        raise BatchError(f"{where}: {str(e).removeprefix('--video-size: ')}") from None


def _fps(value: Any, where: str) -> int:
    if not _is_int(value) or not 1 <= value <= 120:
        raise BatchError(f"{where}: expected an integer from 1 to 120, got {value!r}")
    return value


_DEFAULT_FIELDS: dict[str, Callable[[Any, str], Any]] = {
    "seconds": _one_or_list(lambda v: _is_number(v) and v > 0, "a positive number"),
    "until": _choice(UNTIL),
    "outputs": _outputs,
    "video_size": _video_size,
    "fps": _fps,
}
"""Fields a ``[batch]`` table may set for every ``[[jobs]]`` table."""
_JOBS_FIELDS: dict[str, Callable[[Any, str], Any]] = {
    **_DEFAULT_FIELDS,
    "name": _name,
    "scene": _one_or_list(lambda v: isinstance(v, str) and bool(v), "a scene name or path"),
    "seeds": _seeds,
    "script": _one_or_list(lambda v: isinstance(v, str) and bool(v), "a script path"),
    "sampling": _choice(SAMPLING),
    "samples": _count,
    "sample_seed": _integer,
    "vary": lambda value, where: value,  # checked by _vary
}


def _fields(table: Any, spec: Mapping[str, Callable[[Any, str], Any]], where: str
            ) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise BatchError(f"{where}: expected a table, got {table!r}")
    unknown = sorted(set(table) - set(spec))
    if unknown:
        raise BatchError(f"{where}: unknown field {unknown[0]!r}"
                         f"{did_you_mean(unknown[0], spec)} "
                         f"(known fields: {', '.join(sorted(spec))})")
    return {k: spec[k](v, f"{where}: field {k!r}") for k, v in table.items()}


def _range(value: dict[str, Any], where: str) -> Range:
    unknown = sorted(set(value) - {"min", "max", "steps"})
    if unknown or "min" not in value or "max" not in value:
        raise BatchError(f"{where}: a range is {{min = ..., max = ..., steps = ...}} "
                         f"(steps optional for random sampling), got {value!r}")
    lo, hi, steps = value["min"], value["max"], value.get("steps")
    vector = isinstance(lo, list) and isinstance(hi, list) and len(lo) == len(hi) == 3 \
        and all(_is_number(v) for v in lo + hi)
    if not (vector or (_is_number(lo) and _is_number(hi))):
        raise BatchError(f"{where}: 'min' and 'max' must both be numbers or both vectors "
                         f"[x, y, z], got {lo!r} and {hi!r}")
    if not all(a <= b for a, b in zip(*((lo, hi) if vector else ([lo], [hi])), strict=True)):
        raise BatchError(f"{where}: 'min' must not exceed 'max', got {lo!r} and {hi!r}")
    if steps is not None:
        _count(steps, f"{where}: field 'steps'")
    return Range(lo, hi, steps)


def _vary(table: Any, where: str, prefix: str = "") -> dict[str, list[Any] | Range]:
    """Flatten ``vary`` to dotted keys: ``kid.height = [...]`` and ``"kid.height" = [...]``
    are the same; a value is a non-empty list (one job per value) or a range table."""
    if not isinstance(table, dict):
        raise BatchError(f"{where}: expected a table of scene fields, got {table!r}")
    out: dict[str, list[Any] | Range] = {}
    for key, value in table.items():
        path = f"{prefix}{key}"
        here = f"{where}: {path!r}"
        if isinstance(value, dict) and "min" not in value:
            out.update(_vary(value, where, f"{path}."))
            continue
        if "." not in path:
            raise BatchError(f"{here}: expected '<object name>.<field>' or 'world.<field>'")
        if path == "world.seed":
            raise BatchError(f"{here}: vary the seed with the field 'seeds'")
        if isinstance(value, dict):
            out[path] = _range(value, here)
        elif isinstance(value, list) and value:
            out[path] = value
        else:
            raise BatchError(f"{here}: expected a non-empty list of values or a range "
                             f"{{min, max, steps}}, got {value!r} (one value: [{value!r}])")
    return out


def _jobs_table(table: Any, defaults: Mapping[str, Any], where: str, k: int) -> JobsTable:
    f = {**defaults, **_fields(table, _JOBS_FIELDS, where)}
    if "scene" not in f:
        raise BatchError(f"{where}: missing field 'scene' (a built-in scene name, a .toml "
                         "path, or a list of them)")
    sampling = f.get("sampling", "grid")
    if (sampling == "random") != ("samples" in f):
        raise BatchError(f"{where}: field 'samples' goes with sampling = \"random\" (and "
                         "random sampling needs it)")
    vary = _vary(f.get("vary", {}), f"{where}: [vary]")
    if sampling == "grid":
        for key, axis in vary.items():
            if isinstance(axis, Range) and axis.steps is None:
                raise BatchError(f"{where}: [vary]: {key!r}: a grid range needs 'steps'")
    until = f.get("until", "seconds")
    outputs = f.get("outputs", ["npz"])
    if until == "script" and "mp4" in outputs:
        raise BatchError(f"{where}: field 'outputs': a video runs for 'seconds', so it "
                         "cannot go with until = \"script\"")
    video = {"size": f.get("video_size", [640, 360]), "fps": f.get("fps", 30)} \
        if "mp4" in outputs else None
    _job_count(f, sampling, vary, where)
    return JobsTable(where, f.get("name", f"jobs{k}"), f["scene"], f.get("seeds", [None]),
                     f.get("seconds", [None]), f.get("script", [None]), until, outputs, video,
                     sampling, f.get("samples", 1), f.get("sample_seed", 0), vary)


def _job_count(fields: Mapping[str, Any], sampling: str,
               vary: Mapping[str, list[Any] | Range], where: str) -> None:
    """At most :data:`MAX_JOBS` jobs, counted before any is made."""
    count = 1
    for key in ("scene", "seeds", "seconds", "script"):
        count *= len(fields.get(key, [None]))
    if sampling == "random":
        count *= fields["samples"]
    else:
        for axis in vary.values():
            count *= axis.steps if isinstance(axis, Range) and axis.steps else len(axis) \
                if isinstance(axis, list) else 1
    if count > MAX_JOBS:
        raise BatchError(f"{where}: expands to {count} jobs (scenes x seeds x seconds x "
                         f"scripts x {'samples' if sampling == 'random' else 'vary values'}); "
                         f"at most {MAX_JOBS}")


def spec_path(name: str | Path) -> Path:
    """Path of a ``.toml`` spec file, or of a built-in example spec by name."""
    p = Path(name)
    if p.suffix == ".toml":
        if not p.is_file():
            raise BatchError(f"batch spec {str(p)!r} does not exist")
        return p
    folder = resources.files("twig.scenes") / "batch"
    builtin = folder / f"{name}.toml"
    if not builtin.is_file():
        known = sorted(f.name.removesuffix(".toml") for f in folder.iterdir()
                       if f.name.endswith(".toml"))
        raise BatchError(f"unknown batch spec {str(name)!r}; built-in specs: "
                         f"{', '.join(known)} (or give a .toml path)")
    return Path(str(builtin))


def read_spec(path: Path) -> tuple[str, list[JobsTable]]:
    """The description and the checked ``[[jobs]]`` tables of the spec file at ``path``."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise BatchError(f"{path}: malformed TOML: {e}") from None
    except RecursionError:
        raise BatchError(f"{path}: malformed TOML: arrays or tables nested too deeply") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BatchError(f"{path}: cannot read batch spec: {e}") from None
    unknown = sorted(set(data) - {"batch", "jobs"})
    if unknown:
        raise BatchError(f"{path}: unknown table [{unknown[0]}] (expected [batch] and "
                         "[[jobs]])")
    batch = dict(data.get("batch", {})) if isinstance(data.get("batch", {}), dict) else None
    if batch is None:
        raise BatchError(f"{path}: [batch]: expected a table")
    description = batch.pop("description", "")
    if not isinstance(description, str):
        raise BatchError(f"{path}: [batch]: field 'description': expected a string")
    defaults = _fields(batch, _DEFAULT_FIELDS, f"{path}: [batch]")
    tables = data.get("jobs")
    if not isinstance(tables, list) or not tables:
        raise BatchError(f"{path}: expected at least one [[jobs]] table")
    return description, [_jobs_table(t, defaults, f"{path}: [[jobs]] #{k}", k)
                         for k, t in enumerate(tables, start=1)]
