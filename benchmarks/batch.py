"""Batch throughput (issue #11): ``python benchmarks/batch.py [--jobs N] [--scene NAME]``.

1. Jobs per minute for N 10-second jobs of a scene (default: the playground, or ``hug`` where
   there is no playground yet) on a local pool of 1 and of 2 workers; the wall time includes
   starting the workers (each loads the cached Numba kernels once).
2. The overhead per job of the Ray path against the local pool, on 40 jobs that do almost
   nothing (0.1 s of a tetrahedron): (wall time x workers - the jobs' own time) / jobs, with
   Ray's start measured apart. Needs ``pip install 'twig[ray]'``.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from twig.batch import load_spec, run_batch
from twig.scenes import list_scenes


def write(folder: Path, text: str) -> Path:
    path = folder / "spec.toml"
    path.write_text(text, encoding="utf-8")
    return path


def job_seconds(out: Path) -> float:
    """Sum of the jobs' own wall times (as each worker measured them)."""
    rows = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    return sum(row["wall_s"] for row in rows)


def throughput(folder: Path, scene: str, jobs: int) -> None:
    spec = load_spec(write(folder, f"[[jobs]]\nscene = '{scene}'\nseconds = 10.0\n"
                                   f"outputs = ['npz']\nseeds = {{start = 0, count = {jobs}}}\n"))
    base = None
    for workers in (1, 2):
        report = run_batch(spec, folder / f"pool{workers}", workers=workers)
        assert report.failed == 0
        base = base or report.jobs_per_minute
        print(f"{scene} 10 s x {jobs}: {workers} worker(s): {report.wall_s:.1f} s, "
              f"{report.jobs_per_minute:.1f} jobs/min ({report.jobs_per_minute / base:.2f}x); "
              f"a job takes {job_seconds(folder / f'pool{workers}') / jobs:.2f} s in its "
              f"worker on average (the first one of each worker loads the kernels)")


def overhead(folder: Path, jobs: int = 40, workers: int = 2) -> None:
    import ray

    folder.mkdir()

    def tiny(first: int):
        return load_spec(write(folder, f"[[jobs]]\nscene = 'tetra'\nseconds = 0.1\n"
                                       f"outputs = []\nseeds = {{start = {first}, "
                                       f"count = {jobs}}}\n"))

    def per_job(report, out: Path) -> str:
        return f"{1000 * (report.wall_s * workers - job_seconds(out)) / jobs:.0f} ms"

    pool = run_batch(tiny(0), folder / "pool", workers=workers)
    t0 = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    start = time.perf_counter() - t0
    try:
        cold = run_batch(tiny(jobs), folder / "cold", ray="local")
        warm = run_batch(tiny(2 * jobs), folder / "warm", ray="local")
    finally:
        ray.shutdown()
    print(f"overhead per job ({jobs} tiny jobs, {workers} workers): local pool "
          f"{per_job(pool, folder / 'pool')} (starting its workers included); Ray "
          f"{per_job(cold, folder / 'cold')} with its workers starting, "
          f"{per_job(warm, folder / 'warm')} warm; ray.init {start:.1f} s apart")


def load() -> str:
    """The machine's load: other processes take cores from the workers."""
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=8, help="10-second jobs per pool size")
    parser.add_argument("--scene", help="scene of the 10-second jobs (default: playground)")
    args = parser.parse_args()
    names = {s.name for s in list_scenes()}
    scene = args.scene or ("playground" if "playground" in names else "hug")
    print(f"before: {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        throughput(Path(tmp), scene, args.jobs)
        try:
            overhead(Path(tmp) / "overhead")
        except ImportError:
            print("Ray is not installed (pip install 'twig[ray]'): no Ray overhead")
    print(f"after: {load()}")


if __name__ == "__main__":
    main()
