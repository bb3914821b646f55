"""Run the benchmark suite: ``python benchmarks/run.py [--quick]`` (the same as ``twig bench``).

Needs the peers for ratios: ``pip install -e '.[bench]'`` (pypbd, warp-lang); missing peers are
skipped with a note.
"""

import sys

from twig.bench.suite import run_suite

raise SystemExit(run_suite(quick="--quick" in sys.argv[1:]))
