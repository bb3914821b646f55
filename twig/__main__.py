"""``python -m twig`` is the ``twig`` command."""

from twig.cli import main

if __name__ == "__main__":  # not again in a worker process (spawn re-imports this module)
    raise SystemExit(main())
