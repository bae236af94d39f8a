"""The bundle's entry point: the ``scour-explorer`` command, as ``python -m explorer`` runs it."""

import sys

from explorer.cli import main

sys.exit(main())
