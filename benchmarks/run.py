"""Run the benchmark suite: ``python benchmarks/run.py [--quick]`` (the same as ``twig bench``).

Needs the peers for ratios: ``pip install -e '.[bench]'`` (pypbd, warp-lang); missing peers are
skipped with a note.
"""

import sys

from twig.cli import main

if __name__ == "__main__":
    raise SystemExit(main(["bench", *sys.argv[1:]]))
