"""``domino bench server``, ``cluster``, ``failover``, ``router``, ``crash`` and ``leaks``
(docs/performance.md, docs/reliability.md).

The work lives in :mod:`domino_bench`; this module only adds the
subcommands to ``domino bench``.
"""

from __future__ import annotations

import argparse


def register(what: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``server``, ``crash`` and ``leaks`` to the ``domino bench`` subparsers ``what``."""
    from domino_bench import (
        audit,
        bench,
        benchanalysis,
        benchcluster,
        benchfailover,
        benchmatch,
        benchrouter,
        crash,
    )

    bench.register(what)
    benchanalysis.register(what)
    benchcluster.register(what)
    benchfailover.register(what)
    benchmatch.register(what)
    benchrouter.register(what)
    crash.register(what)
    audit.register(what)
