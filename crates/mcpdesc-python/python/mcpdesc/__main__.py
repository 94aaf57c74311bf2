"""``python -m mcpdesc``: the ``mcpdesc`` command."""

import sys

from ._cli import main

sys.exit(main())
