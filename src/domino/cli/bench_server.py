"""``domino bench server`` and ``domino bench crash`` (see docs/reliability.md).

The work lives in :mod:`domino.loadtest`; this module only adds the two
subcommands to ``domino bench``.
"""

from __future__ import annotations

import argparse


def register(what: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``server`` and ``crash`` to the ``domino bench`` subparsers ``what``."""
    from domino.loadtest import bench, crash

    bench.register(what)
    crash.register(what)
