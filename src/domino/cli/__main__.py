"""``python -m domino.cli ...``: the ``domino`` console script without its launcher."""

import sys

from domino.cli import main

sys.exit(main())
