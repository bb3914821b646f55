"""``twig check [SCENES] --seeds N --seconds S --workers W``: the believability sweep.

Runs every scene at every seed on the batch runner's local pool (each job in a fresh worker
process, so the numbers depend only on scene, seed and duration), measures each run with
:func:`twig.batch.believability.believability`, prints a table, optionally writes JSON, and
exits 1 when a threshold given on the command line (or by ``--strict``) is crossed.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from twig import cli_args as arg
from twig.batch.spec import BatchError
from twig.batch.sweep import Job, _Files, job_id

if TYPE_CHECKING:
    from twig.batch.job import JobResult


@dataclass(frozen=True)
class Metric:
    """A metric of the sweep: its ``key`` in the results, the ``flag`` of its threshold
    (``--max-<flag>`` or ``--min-<flag>`` by ``bound``), its column ``label`` and ``help``."""

    key: str
    flag: str
    bound: str
    label: str
    help: str


METRICS = (
    Metric("jump_m", "jump", "max", "jump m", "largest move of a character's node in one "
           "30 fps frame, m"),
    Metric("stretch_p99_pct", "stretch-p99", "max", "stretch p99 %", "99th percentile over "
           "frames of the largest visible link error, %%"),
    Metric("stretch_max_pct", "stretch", "max", "stretch max %", "largest visible link "
           "error, %%"),
    Metric("falls_pain", "falls-pain", "min", "falls pain", "falls with pain in the 3 s "
           "before"),
    Metric("adult_falls_unexplained", "adult-falls", "max", "adult falls", "adult falls "
           "with neither pain nor a hybrid hand-over in the 3 s before"),
    Metric("child_falls_no_pain", "child-falls", "max", "child falls", "child falls "
           "without pain in the 3 s before"),
    Metric("child_lean_pct", "lean", "max", "lean %", "a child's frames (not down) with "
           "the trunk past 45 degrees, %%"),
    Metric("hug_hands_min", "hug-hands", "min", "hug hands", "least share of a joined "
           "hug's first second with both hands within 0.3 m of the partner's trunk"),
    Metric("prop_speed_ms", "prop-speed", "max", "prop m/s", "fastest prop node (balls "
           "left out), m/s"),
    Metric("standup_speed_ms", "standup-speed", "max", "stand-up m/s", "fastest pelvis "
           "while standing up, m/s"),
    Metric("foot_slide_cm", "foot-slide", "max", "slide cm", "mean foot slide per plant, "
           "cm"),
    Metric("knee_frames", "knee-frames", "max", "knee fr", "30 fps frames with a knee bent "
           "backwards"),
    Metric("penetration_cm", "penetration", "max", "depth cm", "deepest interpenetration "
           "of a contact, cm"),
    Metric("home_cycles", "home-cycles", "min", "cycles", "completed home-base cycles "
           "(ball, joined hug, ball)"),
)
BY_KEY = {m.key: m for m in METRICS}
BY_FLAG = {m.flag: m for m in METRICS}

STRICT: dict[str, dict[str, float]] = {
    "*": {"jump_m": 0.5, "stretch_p99_pct": 5.0, "stretch_max_pct": 20.0,
          "adult_falls_unexplained": 0, "child_falls_no_pain": 0, "child_lean_pct": 5.0,
          "hug_hands_min": 0.8, "prop_speed_ms": 6.0, "standup_speed_ms": 1.5},
    "walk": {"foot_slide_cm": 1.0},
    "playground": {"home_cycles": 3},
    "kick": {"falls_pain": 1},
}
"""``--strict``: the acceptance thresholds of issue #33, for every scene (``"*"``) and for
particular scenes (by name)."""


def add_check_parser(sub: argparse._SubParsersAction) -> None:
    """The ``check`` subcommand's arguments."""
    check = sub.add_parser("check", help="believability sweep: scenes x seeds, measured "
                                         "(docs/believability.md)")
    check.add_argument("scenes", nargs="*", metavar="SCENE",
                       help="built-in scene names or .toml paths (default: every built-in)")
    check.add_argument("--seeds", type=arg.count, default=5, metavar="N",
                       help="seeds 0 to N-1 (default 5)")
    check.add_argument("--seed", type=arg.seed, action="append", metavar="S",
                       help="this seed (repeatable; instead of --seeds)")
    check.add_argument("--seconds", type=arg.seconds, default=None, metavar="S",
                       help="simulated seconds per run (default: each scene's own)")
    check.add_argument("--workers", type=arg.workers, default=None, metavar="W",
                       help="worker processes (default: every core)")
    check.add_argument("--json", metavar="FILE", help="write every result as JSON")
    check.add_argument("--strict", action="store_true",
                       help="the acceptance thresholds of docs/believability.md")
    check.add_argument("--fail-on", action="append", default=[], metavar="NAME=VALUE",
                       help="a threshold on a metric by its JSON name (its bound: "
                            "max or min as in docs/believability.md); repeatable")
    for m in METRICS:
        check.add_argument(f"--{m.bound}-{m.flag}", type=float, default=None, metavar="X",
                           dest=f"limit_{m.key}",
                           help=f"{m.bound} {m.help}".replace("%", "%%"))


def thresholds(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """Scene (or ``"*"``) -> metric -> limit, from ``--strict``, ``--fail-on`` and the
    ``--max-``/``--min-`` options (later ones win)."""
    limits = {scene: dict(values) for scene, values in STRICT.items()} if args.strict else {}
    every = limits.setdefault("*", {})
    for text in args.fail_on:
        name, _, value = text.partition("=")
        if name not in BY_KEY:
            raise BatchError(f"--fail-on {text!r}: unknown metric {name!r} (known: "
                             f"{', '.join(BY_KEY)})")
        try:
            every[name] = float(value)
        except ValueError:
            raise BatchError(f"--fail-on {text!r}: expected NAME=NUMBER") from None
    for m in METRICS:
        value = getattr(args, f"limit_{m.key}")
        if value is not None:
            every[m.key] = value
    return limits


def crossed(scene: str, metrics: dict[str, Any], limits: dict[str, dict[str, float]]
            ) -> list[str]:
    """The thresholds that ``metrics`` of a run of ``scene`` cross, as ``name=value (max
    limit)`` texts (a metric that is None, nothing to measure, crosses none)."""
    stem = Path(scene).stem
    out = []
    for key, limit in {**limits.get("*", {}), **limits.get(stem, {})}.items():
        value = metrics.get(key)
        if value is None:
            continue
        bound = BY_KEY[key].bound
        if (bound == "max" and value > limit) or (bound == "min" and value < limit):
            out.append(f"{key}={value:g} ({bound} {limit:g})")
    return out


def check_jobs(scenes: list[str], seeds: list[int], seconds: float | None) -> list[Job]:
    """A job per scene and seed that measures believability and writes nothing else."""
    files = _Files(Path.cwd())
    jobs = []
    for scene in scenes:
        load, sha = files.scene(scene, f"scene {scene!r}")
        for index, seed in enumerate(seeds):
            params = {"scene": scene, "scene_sha256": sha, "script": None,
                      "script_sha256": None, "seed": seed, "seconds": seconds,
                      "until": "seconds", "overrides": {}, "outputs": ["check"], "video": None}
            jobs.append(Job(job_id(params), "check", index, params, load, None))
    return jobs


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"
    return str(value)


def result_table(rows: list[dict[str, Any]], title: str) -> Table:
    """The terminal table: a row per scene and seed, a column per metric (crossed
    thresholds in red)."""
    table = Table("scene", "seed", *(m.label for m in METRICS), title=title, box=None)
    for row in rows:
        metrics = row.get("metrics") or {}
        bad = {c.split("=")[0] for c in row.get("crossed", [])}
        cells = [(f"[red]{_cell(metrics.get(m.key))}[/]" if m.key in bad
                  else _cell(metrics.get(m.key))) for m in METRICS]
        if row["status"] != "ok":
            cells = [f"[red]failed: {row['error']}[/]"] + [""] * (len(METRICS) - 1)
        table.add_row(Path(row["scene"]).stem, str(row["seed"]), *cells)
    return table


def run_check(jobs: list[Job], workers: int, limits: dict[str, dict[str, float]],
              console: Console | None) -> list[dict[str, Any]]:
    """Run ``jobs`` on ``workers`` processes; a row per job (scene, seed, seconds, status,
    error, metrics, falls, hugs, crossed) in job order. ``console``: where progress goes
    (a bar on a terminal, else a line per finished job; None: nowhere)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from twig.batch.runner import LocalPool  # the runs' code: not needed to parse arguments

    rows: dict[str, dict[str, Any]] = {}
    terminal = console is not None and console.is_terminal
    with Progress(TextColumn("[bold]check"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("runs"), TimeElapsedColumn(), console=console,
                  disable=not terminal) as bar:
        task = bar.add_task("check", total=len(jobs))
        by_id = {j.id: j for j in jobs}

        def done(result: JobResult) -> None:
            r = result.row
            job = by_id[r["job"]]
            check = r.get("check") or {}
            row = {"scene": job.params["scene"], "seed": job.params["seed"],
                   "seconds": r.get("sim_seconds"), "status": r["status"],
                   "error": r.get("error"), "metrics": check.get("metrics"),
                   "falls": check.get("falls", []), "hugs": check.get("hugs", [])}
            row["crossed"] = crossed(row["scene"], row["metrics"], limits) \
                if row["metrics"] else []
            rows[job.id] = row
            bar.update(task, advance=1)
            if console is not None and not terminal:
                state = row["error"] if r["status"] != "ok" else \
                    ("; ".join(row["crossed"]) or "ok")
                console.print(f"[{len(rows)}/{len(jobs)}] {Path(row['scene']).stem} seed "
                              f"{row['seed']}: {state}", markup=False, highlight=False)

        LocalPool(workers).run(jobs, done)
    return [rows[j.id] for j in jobs]


def check_main(args: argparse.Namespace, console: Console) -> int:
    """Run the sweep; 0 when every run finished within the thresholds, 1 otherwise."""
    import os

    from twig.scenes import list_scenes

    if args.seeds < 1:
        raise BatchError(f"--seeds: expected a positive number, got {args.seeds}")
    if args.seconds is not None and not args.seconds > 0:
        raise BatchError(f"--seconds: expected a positive number, got {args.seconds}")
    limits = thresholds(args)
    scenes = args.scenes or [info.name for info in list_scenes()]
    seeds = args.seed or list(range(args.seeds))
    jobs = check_jobs(scenes, seeds, args.seconds)
    progress = Console(stderr=True)
    rows = run_check(jobs, args.workers or os.cpu_count() or 1, limits, progress)
    console.print(result_table(rows, f"twig check: {len(scenes)} scenes x {len(seeds)} seeds"))
    if args.json:
        Path(args.json).write_text(json.dumps({"thresholds": limits, "runs": rows},
                                              indent=1) + "\n")
    bad = [r for r in rows if r["status"] != "ok" or r["crossed"]]
    for r in bad:
        why = r["error"] if r["status"] != "ok" else ", ".join(r["crossed"])
        print(f"{Path(r['scene']).stem} seed {r['seed']}: {why}", file=sys.stderr)
    return 1 if bad else 0
