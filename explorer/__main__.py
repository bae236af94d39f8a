"""``python -m explorer``: the same as the ``scour-explorer`` command."""

import sys

from explorer.cli import main

sys.exit(main())
