"""``twig batch SPEC [--workers N] [--ray ADDRESS|auto|local] [--out DIR] [--list]``."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.table import Table

from twig.batch.manifest import Manifest
from twig.batch.sweep import BatchSpec, load_spec
from twig.cli_args import workers

SHOWN_FAILURES = 5
"""Failed jobs whose errors the summary prints (all are in the manifest)."""


def add_batch_parser(sub: argparse._SubParsersAction) -> None:
    """The ``batch`` subcommand's arguments."""
    batch = sub.add_parser("batch", help="run many scenes, seeds and scripts (docs/batch.md)")
    batch.add_argument("spec", help="batch spec (.toml path, or a built-in spec name)")
    batch.add_argument("--workers", type=workers, default=None, metavar="N",
                       help="local worker processes (default: every core); with --ray local, "
                            "the CPUs of the Ray instance")
    batch.add_argument("--ray", metavar="ADDRESS",
                       help="run the jobs as Ray tasks: a cluster ADDRESS, 'auto' (the "
                            "cluster this machine is in) or 'local' (start Ray here); needs "
                            "pip install 'twig[ray]'")
    batch.add_argument("--out", metavar="DIR",
                       help="output folder: a folder per job and manifest.jsonl "
                            "(default: ./<spec name>-out)")
    batch.add_argument("--list", action="store_true",
                       help="list the jobs (and which are finished) without running them")


def batch_main(args: argparse.Namespace, console: Console) -> int:
    """Run (or list) a batch; 0 if every job succeeded, 1 if some failed, 130 if stopped by
    Ctrl-C."""
    from twig.batch.runner import run_batch  # the runs' code: not needed to parse arguments

    spec = load_spec(args.spec)
    out = Path(args.out) if args.out else Path(f"{spec.path.stem}-out")
    if args.list:
        console.print(_job_table(spec, Manifest(out) if out.exists() else None))
        return 0
    report = run_batch(spec, out, workers=args.workers, ray=args.ray, console=console)
    manifest = Manifest(out)
    console.print(
        f"[bold]{spec.path.name}[/]: {report.jobs} jobs: {report.ok} finished, "
        f"{report.failed} failed, {report.skipped} already done; {report.wall_s:.1f} s "
        f"({report.jobs_per_minute:.0f} jobs/min); manifest {manifest.path}", highlight=False)
    failures = [manifest.rows[j.id] for j in spec.jobs
                if manifest.rows.get(j.id, {}).get("status") == "failed"]
    for row in failures[:SHOWN_FAILURES]:
        console.print(f"failed {row['job']}: {row['error']}", markup=False, highlight=False)
    if report.interrupted:
        console.print("interrupted: run the same command again to finish the batch")
        return 130
    return 1 if failures else 0


def _job_table(spec: BatchSpec, manifest: Manifest | None) -> Table:
    table = Table("job", "group", "scene", "seed", "seconds", "script", "vary", "status",
                  title=f"{spec.path.name}: {len(spec.jobs)} jobs", box=None)
    for job in spec.jobs:
        p = job.params
        row = manifest.rows.get(job.id) if manifest else None
        status = "done" if manifest and manifest.finished(job.id) else \
            (row or {}).get("status", "to run")
        vary = ", ".join(f"{k}={v}" for k, v in p["overrides"].items())
        table.add_row(job.id, job.group, p["scene"], str(p["seed"]), str(p["seconds"]),
                      str(p["script"] or ""), vary, status)
    return table
