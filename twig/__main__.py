"""``python -m twig`` is the ``twig`` command."""

from twig.cli import main

raise SystemExit(main())
